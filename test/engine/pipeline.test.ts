import { expect } from "chai";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Subject } from "rxjs";
import type { Outcome } from "../../src/schema/outcome.js";
import type { Arrival } from "../../src/core/arrival.js";
import type { Judgement } from "../../src/engine/stages.js";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { nullEventLog } from "../../src/store/eventLog.js";
import { judgeEvents } from "../../src/engine/pipeline.js";
import { REPO_ROOT, Sandbox, group, payloadFor } from "../support/sandbox.js";

/** One long-lived pipeline per bus: the synchronous branch, the hook branch, and errors as values. */
describe("engine: the long-lived pipeline", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const pre = (extra: Record<string, unknown> = {}) => ({ ...payloadFor("PreToolUse", extra), hook_event_name: "PreToolUse" });

  for (const logged of [true, false]) {
    it(`an event no hook matches is judged in the turn it arrives, log ${logged ? "on: its record committed" : "off"}`, async () => {
      sb.userSettings({ hooks: { PreToolUse: [group("Write", "true")] } });
      const bus = sb.bus({ watch: false, db: logged ? sb.db : false });
      const seen: Outcome[] = [];
      bus.outcomes$.subscribe((o) => seen.push(o));
      const dispatched = bus.dispatch(pre({ session_id: "now" }));
      // Nothing awaited yet: the outcome is out already.
      expect(seen.map((o) => o.sessionId)).to.deep.equal(["now"]);
      if (logged) {
        const db = new Database(sb.db, { readonly: true });
        try {
          const row = db.prepare("SELECT seq, decision FROM journal WHERE kind = 'event'").get() as { seq: number; decision: string };
          expect(row).to.deep.equal({ seq: seen[0]!.seq, decision: "none" });
        } finally {
          db.close();
        }
      } else expect(seen[0]!.seq).to.equal(null);
      expect(await dispatched).to.equal(seen[0]);
    });
  }

  it("events a flood defers to the next turn keep their place: a dispatch made after them is logged after them", async () => {
    sb.userSettings({ hooks: { PreToolUse: [group("Write", "true")] } });
    const bus = sb.bus({ watch: false, db: sb.db });
    const first = bus.dispatch(pre({ session_id: "first" }));
    // Queued after the turn's end (the first dispatch scheduled it), before the events the flood defers.
    let late!: Promise<Outcome>;
    setImmediate(() => (late = bus.dispatch(pre({ session_id: "late" }))));
    const flood: Promise<Outcome>[] = [];
    const until = performance.now() + 20;
    while (performance.now() < until) flood.push(bus.dispatch(pre({ session_id: "flood" })));
    const outcomes = await Promise.all([first, ...flood]);
    await new Promise((r) => setImmediate(r));
    const last = await late;
    const seqs = outcomes.map((o) => o.seq!);
    expect(seqs, "the flood in dispatch order").to.deep.equal([...seqs].sort((a, b) => a - b));
    expect(last.seq!, "the later dispatch after every flood event").to.be.greaterThan(Math.max(...seqs));
    await bus.close();
  });

  it("a hook's process is spawned before the event's arrival commits, and runs its command only after", async () => {
    const marker = join(sb.root, "ran");
    const checker = sb.file(
      "check.cjs",
      [
        `const Database = require(${JSON.stringify(join(REPO_ROOT, "node_modules", "better-sqlite3"))});`,
        `const db = new Database(${JSON.stringify(sb.db)}, { readonly: true });`,
        `const n = db.prepare("SELECT count(*) AS n FROM journal WHERE kind = 'event' AND session_id = 'gate'").get().n;`,
        `require("node:fs").writeFileSync(${JSON.stringify(marker)}, String(n));`,
      ].join("\n"),
    );
    const command = `'${process.execPath}' '${checker}' # gate-check-${process.pid}`;
    sb.userSettings({ hooks: { PreToolUse: [group("Bash", command)] } });
    const bus = sb.bus({ watch: false, db: sb.db });
    await bus.dispatch(pre({ session_id: "warm" })); // the log exists, the hook runner is loaded
    rmSync(marker);

    // Another connection holds the write lock: the arrival cannot commit yet.
    const other = new Database(sb.db);
    other.exec("BEGIN IMMEDIATE");
    let released = false;
    try {
      const outcome = bus.dispatch(pre({ session_id: "gate" })).finally(() => expect(released).to.equal(true));
      const spawned = () => processesWith(`gate-check-${process.pid}`).length > 0;
      const deadline = Date.now() + 10_000;
      while (!spawned() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(spawned(), "the hook's shell is started while the arrival waits").to.equal(true);
      await new Promise((r) => setTimeout(r, 200));
      expect(existsSync(marker), "the command waits at the gate").to.equal(false);
      other.exec("COMMIT");
      released = true;
      const o = await outcome;
      expect(o.hooks.map((h) => h.outcome)).to.deep.equal(["success"]);
      // When the command ran, the arrival was in the log.
      expect(readFileSync(marker, "utf8")).to.equal("1");
    } finally {
      if (other.inTransaction) other.exec("ROLLBACK");
      other.close();
    }
  });

  it("an error inside a step costs its event only: the stream goes on judging, and never completes", async () => {
    let calls = 0;
    const snapshot = loadSettings([]);
    const arrivals = new Subject<Arrival>();
    const out: Judgement[] = [];
    let completed = false;
    arrivals
      .pipe(
        judgeEvents({
          projectDir: sb.project,
          homeDir: sb.home,
          baseEnv: sb.env(),
          maxOutputBytes: 1000,
          replay: false,
          callChain: [],
          log: nullEventLog,
          source: "dispatch",
          stopBlockCap: null,
          snapshot: () => {
            if (++calls === 2) throw new Error("settings blew up");
            return snapshot;
          },
        }),
      )
      .subscribe({ next: (j) => out.push(j), complete: () => (completed = true) });
    const arrive = (session: string) => arrivals.next({ input: pre({ session_id: session }), receivedAt: new Date(), startedAt: performance.now() });
    arrive("a");
    arrive("b");
    arrive("c");
    arrivals.next({ input: "{not json", receivedAt: new Date(), startedAt: performance.now() });
    arrive("d");
    // Judged synchronously, or in the next turn when the first events took this turn's share.
    for (let turns = 0; out.length < 5 && turns < 50; turns++) await new Promise((r) => setImmediate(r));
    expect(out.map((j) => j.kind)).to.deep.equal(["outcome", "failed", "outcome", "rejected", "outcome"]);
    expect(out[1]!.kind === "failed" && out[1]!.error).to.equal("internal error while judging the event: settings blew up");
    expect(completed).to.equal(false);
  });
});

/** Processes of this machine whose command line holds `text`. */
function processesWith(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
