import { existsSync, renameSync, rmSync } from "node:fs";
import Database from "better-sqlite3";
import { expect } from "chai";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import type { HookBus } from "../../src/engine/createHookBus.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { logJson } from "./storeHelpers.js";

/**
 * The log file removed or replaced while a bus has it open: later events must not go to a file nobody can read
 * any more, silently. The bus notices, opens the path again (one warning) or, when it cannot do so safely, says on
 * every event that it was not logged.
 */
describe("the log file removed or replaced while a bus runs", function () {
  this.timeout(30_000);
  let sb: Sandbox;
  let bus: HookBus;
  let warnings: string[];
  beforeEach(() => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "exit 0", name: "ok" })] } });
    bus = sb.bus({ db: sb.db, watch: false });
    warnings = [];
    bus.warnings$.subscribe((w) => warnings.push(w));
  });
  afterEach(() => sb.cleanup());

  // One with a hook (arrival, then outcome) and one without (one step).
  const dispatch = async (session: string) => [
    await bus.dispatch(payloadFor("PreToolUse", { session_id: session, hook_event_name: "PreToolUse" })),
    await bus.dispatch(payloadFor("PreToolUse", { session_id: session, hook_event_name: "PreToolUse", tool_name: "Read" })),
  ];
  const reopened = (w: string) => /removed or replaced while in use; opened it again/.test(w);

  it("removed (its WAL files left behind, as rm leaves them): the next event reopens the path, with one warning, and every later event is in the file there", async () => {
    await dispatch("before");
    rmSync(sb.db);
    const after = [...(await dispatch("after")), ...(await dispatch("later"))];
    expect(after.map((o) => o.seq)).to.satisfy((seqs: unknown[]) => seqs.every((s) => typeof s === "number"));
    expect(warnings.filter(reopened), warnings.join("\n")).to.have.length(1);
    expect(after[0]!.warnings.filter(reopened)).to.have.length(1);
    expect(after.slice(1).flatMap((o) => o.warnings)).to.deep.equal([]);
    await bus.close();
    const records = await logJson(sb);
    expect(records.map((r) => [r.seq, r.sessionId, r.decision])).to.deep.equal(after.map((o) => [o.seq, o.sessionId, "none"]).reverse());
    expect((await sb.run(["verify"])).code).to.equal(0);
  });

  it("replaced by another log: the events go on in that log, after its own records, which stay as they were", async () => {
    await dispatch("before");
    const other = `${sb.root}/other.db`;
    const seeded = openSqliteLog(other);
    await seeded.append([
      {
        kind: "event",
        ts: new Date(),
        source: "record",
        event: "Stop",
        sessionId: "theirs",
        matchValue: null,
        projectDir: sb.project,
        payload: "{}",
        snapshot: null,
        rejection: null,
        replay: null,
        outcome: null,
      },
    ]);
    await seeded.close();
    renameSync(other, sb.db);
    const after = await dispatch("after");
    expect(warnings.filter(reopened)).to.have.length(1);
    await bus.close();
    const records = await logJson(sb);
    expect(records.map((r) => r.sessionId)).to.deep.equal(["after", "after", "theirs"]);
    expect(records.slice(0, 2).map((r) => r.seq)).to.deep.equal(after.map((o) => o.seq).reverse());
    expect((await sb.run(["verify"])).code).to.equal(0);
  });

  it("replaced while another connection still uses the old file: every event says it was not logged until that connection is gone, then the path is reopened", async () => {
    await dispatch("before");
    // Another process (here: another connection) in the middle of reading the old file.
    const holder = new Database(sb.db, { readonly: true });
    const reading = holder.prepare("SELECT seq FROM journal").iterate();
    reading.next();
    const other = `${sb.root}/other.db`;
    await openSqliteLog(other).close();
    renameSync(other, sb.db);
    try {
      for (const session of ["x", "y"]) {
        for (const o of await dispatch(session)) {
          expect(o.decision, "the decision is still made").to.equal("none");
          expect(o.seq).to.equal(null);
          expect(o.warnings.join("\n"))
            .to.match(/not recorded/)
            .and.match(/another process still uses the old one/);
        }
      }
    } finally {
      reading.return?.();
      holder.close();
    }
    const [next] = await dispatch("z");
    expect(next!.seq).to.be.a("number");
    expect(next!.warnings.filter(reopened)).to.have.length(1);
    await bus.close();
    expect(existsSync(sb.db)).to.equal(true);
    expect((await logJson(sb)).map((r) => r.sessionId)).to.deep.equal(["z", "z"]);
    expect((await sb.run(["verify"])).code).to.equal(0);
  });
});
