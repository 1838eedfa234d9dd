import { expect } from "chai";
import { join } from "node:path";
import type { LogRecord } from "../../src/schema/logRecord.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { journalCount } from "../store/storeHelpers.js";
import { CLI, Sandbox } from "../support/sandbox.js";
import { BUS_MODULE, DIST, QUICK, clip, runScript, type Script } from "./support.js";
import { verifiedRecords } from "../support/verifyLine.js";

/**
 * Issue 6, concurrency: 8 processes, each with its own bus on one shared log, dispatch many events at once, some
 * judged by an in-process handler (arrival and outcome in two transactions), some by nothing (one transaction).
 * Every event ends up in the log exactly once (counted by a unique marker in its payload), with its outcome; the
 * chain is valid; and a reader (`qhooks log --json` in a loop) running all the while always sees a consistent log.
 */
const WRITERS = 8;

/** One writer: a bus on the shared log, `count` events dispatched 4 at a time; prints a summary line of JSON. */
const writerScript = (project: string, home: string, db: string) => `
  const { createHookBus } = await import(${JSON.stringify(BUS_MODULE)});
  const [writer, count] = process.argv.slice(1).map(Number);
  const bus = createHookBus({ projectDir: ${JSON.stringify(project)}, homeDir: ${JSON.stringify(home)}, db: ${JSON.stringify(db)}, watch: false });
  bus.use("PreToolUse", "Bash", (p) => (p.tool_input.n % 3 === 0 ? { decision: "allow", reason: "third" } : undefined), { name: "judge" });
  const summary = { logged: 0, unlogged: 0, warnings: [] };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const outcome = await bus.dispatch({
        hook_event_name: "PreToolUse", session_id: "w" + writer,
        tool_name: n % 2 === 0 ? "Bash" : "Read",
        tool_input: { marker: "m-" + writer + "-" + n, n },
      });
      if (outcome.seq === null) summary.unlogged++; else summary.logged++;
      summary.warnings.push(...outcome.warnings);
    }
  };
  process.stdout.write("ready\\n");
  await Promise.all([worker(), worker(), worker(), worker()]);
  await bus.close();
  process.stdout.write(JSON.stringify(summary) + "\\n");
`;

describe("reliability: 8 processes appending to one log", function () {
  this.timeout(600_000);
  let sb: Sandbox;
  const scripts: Script[] = [];
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(async () => {
    for (const s of scripts) s.stop();
    await Promise.allSettled(scripts.map((s) => s.done));
    scripts.length = 0;
    await sb.cleanup();
  });

  /** What a consistent record of this test looks like, whenever it is read. */
  function checkRecord(r: LogRecord, where: string): string {
    const payload = r.payload as { tool_name: string; tool_input: { marker: string; n: number } };
    const marker = payload.tool_input.marker;
    expect(marker, where).to.match(/^m-\d+-\d+$/);
    expect(r.sessionId, where).to.equal(`w${marker.split("-")[1]}`);
    if (r.decision === "unfinished") {
      // Only an event whose hooks are still running may be seen without its outcome.
      expect(payload.tool_name, `${where}: ${marker} unfinished`).to.equal("Bash");
      expect(r.hooks, where).to.deep.equal([]);
      return marker;
    }
    expect(r.seq, where).to.be.a("number");
    if (payload.tool_name === "Bash") {
      expect(
        r.hooks.map((h) => [h.name, h.outcome]),
        `${where}: ${marker}`,
      ).to.deep.equal([["judge", "success"]]);
      expect(r.decision, `${where}: ${marker}`).to.equal(payload.tool_input.n % 3 === 0 ? "allow" : "none");
    } else {
      expect(r.hooks, `${where}: ${marker}`).to.deep.equal([]);
      expect(r.decision, `${where}: ${marker}`).to.equal("none");
    }
    return marker;
  }

  async function crowd(perWriter: number): Promise<void> {
    await openSqliteLog(sb.db).close();
    const writers = Array.from({ length: WRITERS }, (_, w) => {
      const s = runScript(writerScript(sb.project, sb.home, sb.db), { cwd: sb.project, env: sb.env(), args: [String(w), String(perWriter)] });
      scripts.push(s);
      return s;
    });
    let writersDone = false;
    const all = Promise.all(writers.map((w) => w.done)).finally(() => (writersDone = true));

    // Three readers in a loop for as long as the writers run (the log exists from the start, empty).
    const reads: { during: boolean; count: number }[] = [];
    const readLoop = async (n: number) => {
      do {
        const during = !writersDone;
        const r = await sb.run(["log", "--json", "--limit", "100000"]);
        expect(r.code, `reader ${n}: ${clip(r.stderr)}`).to.equal(0);
        const records = JSON.parse(r.stdout) as LogRecord[];
        const seqs = records.map((x) => x.seq);
        expect(seqs, "newest first, each once").to.deep.equal([...new Set(seqs)].sort((a, b) => b - a));
        for (const record of records) checkRecord(record, `reader ${n}, read ${reads.length}`);
        reads.push({ during, count: records.length });
      } while (!writersDone);
    };
    const reader = Promise.all([readLoop(1), readLoop(2), readLoop(3)]);
    reader.catch(() => undefined); // awaited below; a failure must not count as unhandled meanwhile

    const results = await all;
    await reader;
    for (const [w, r] of results.entries()) {
      expect(r.code, `writer ${w}: ${clip(r.stderr)}`).to.equal(0);
      const summary = JSON.parse(r.stdout.trim().split("\n").pop()!) as { logged: number; unlogged: number; warnings: string[] };
      expect(summary, `writer ${w}`).to.deep.equal({ logged: perWriter, unlogged: 0, warnings: [] });
    }

    const listing = await sb.run(["log", "--json", "--limit", "100000"]);
    expect(listing.code, listing.stderr).to.equal(0);
    const records = JSON.parse(listing.stdout) as LogRecord[];
    const markers = records.map((r, i) => checkRecord(r, `final ${i}`));
    expect(
      records.filter((r) => r.decision === "unfinished"),
      "every outcome is there",
    ).to.have.length(0);
    const counts = new Map<string, number>();
    for (const m of markers) counts.set(m, (counts.get(m) ?? 0) + 1);
    expect(counts.size, "every event present").to.equal(WRITERS * perWriter);
    expect(
      [...counts.values()].every((n) => n === 1),
      "every event present exactly once",
    ).to.equal(true);

    const total = journalCount(sb.db);
    const verify = await sb.run(["verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verifiedRecords(verify.stdout), verify.stdout).to.equal(total);
    const partial = reads.filter((r) => r.during && r.count < WRITERS * perWriter);
    expect(partial.length, "reads that saw the log half-written").to.be.at.least(2);
    console.log(`      ${WRITERS} × ${perWriter} events, ${total} records, ${reads.length} reads during the appends`);
  }

  it(`8 writers × 150 events ${QUICK}`, () => crowd(150));
  it("8 writers × 500 events", () => crowd(500));

  it(`a new log opened by 4 processes at the same instant, 50 times over: every open succeeds and appends ${QUICK}`, async () => {
    // Switching a new file to WAL needs it to itself, and SQLite says SQLITE_BUSY at once (no busy handler) while
    // another process has it open: about 1 open in 250 failed so before openSqliteLog retried it.
    const STORE_MODULE = join(DIST, "store", "sqlite", "sqliteEventLog.js");
    const opener = `
      const { openSqliteLog } = await import(${JSON.stringify(STORE_MODULE)});
      const [path, at] = process.argv.slice(1);
      while (Date.now() < Number(at)) {} // all four open together
      const log = openSqliteLog(path);
      await log.append([{ kind: "event", ts: new Date(), source: "record", event: "Stop", sessionId: "s", matchValue: null,
        projectDir: "/p", payload: "{}", snapshot: null, rejection: null, replay: null, outcome: null }]);
      await log.close();`;
    const failures: string[] = [];
    for (let round = 0; round < 50; round++) {
      const path = join(sb.root, `new-${round}.db`);
      const at = Date.now() + 300;
      const opens = Array.from({ length: 4 }, () => runScript(opener, { cwd: sb.project, env: sb.env(), args: [path, String(at)] }));
      scripts.push(...opens);
      for (const r of await Promise.all(opens.map((o) => o.done))) if (r.code !== 0) failures.push(`round ${round}: ${clip(r.stderr, 300)}`);
      if (failures.length === 0) expect(journalCount(path), `round ${round}`).to.equal(4);
    }
    expect(failures).to.deep.equal([]);
  });

  it("8 shell loops of qhooks run and qhooks record (25 each): every process opens, appends and closes the file under contention", async () => {
    // Opening, migrating and the checkpoint of the last connection to close are what a short-lived CLI adds.
    const hook = sb.script("judge.sh", "cat >/dev/null; exit 0");
    sb.projectSettings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook, name: "judge" }] }] } });
    const PER = 25;
    const loops = Array.from({ length: WRITERS }, (_, w) => {
      const command = w % 2 === 0 ? "run PreToolUse" : "record PreToolUse";
      const s = runScript(
        `const { spawnSync } = await import("node:child_process");
         const [w, per] = process.argv.slice(1);
         const failures = [];
         for (let n = 0; n < Number(per); n++) {
           const payload = JSON.stringify({ session_id: "loop" + w, tool_name: n % 2 ? "Read" : "Bash", tool_input: { marker: "m-" + w + "-" + n, n } });
           const r = spawnSync(process.execPath, [${JSON.stringify(CLI)}, ...${JSON.stringify(command.split(" "))}], { input: payload, encoding: "utf8" });
           if (r.status !== 0 || r.stderr !== "") failures.push([n, r.status, r.stderr]);
         }
         process.stdout.write(JSON.stringify(failures));`,
        { cwd: sb.project, env: sb.env(), args: [String(w), String(PER)] },
      );
      scripts.push(s);
      return s;
    });
    for (const [w, r] of (await Promise.all(loops.map((l) => l.done))).entries()) {
      expect(r.code, clip(r.stderr)).to.equal(0);
      expect(JSON.parse(r.stdout), `loop ${w}`).to.deep.equal([]);
    }
    const records = JSON.parse((await sb.run(["log", "--json", "--limit", "100000"])).stdout) as LogRecord[];
    const markers = records.map((r) => (r.payload as { tool_input: { marker: string } }).tool_input.marker);
    expect(new Set(markers).size).to.equal(WRITERS * PER);
    expect(markers).to.have.length(WRITERS * PER);
    expect(records.filter((r) => r.decision === "recorded")).to.have.length((WRITERS / 2) * PER);
    expect(records.filter((r) => r.decision === "unfinished")).to.have.length(0);
    const verify = await sb.run(["verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
  });
});
