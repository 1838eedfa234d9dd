import { expect } from "chai";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { journalCount, logJson, readOnly, startCli, type Started } from "./storeHelpers.js";

/** Contract 7: safe for several processes appending at once. */
describe("concurrent appenders", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  const started: Started[] = [];

  before(() => {
    sb = new Sandbox();
  });
  after(async () => {
    for (const s of started) s.stop();
    await Promise.allSettled(started.map((s) => s.done));
    await sb.cleanup();
  });

  it("20 qhooks run processes started at once lose nothing and leave a valid chain, while a reader always gets valid JSON", async () => {
    const N = 20;
    // A hook that takes a little while, so that arrivals and outcomes of different processes interleave.
    const hook = sb.script("slow-ok.sh", `cat >/dev/null; sleep 0.2; echo "checked $QHOOKS_SESSION_ID" >&2; exit 0`);
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: hook, name: "slow-ok" })] } });
    // The file exists (empty journal) before the crowd arrives, so that the reader has something to read.
    await openSqliteLog(sb.db).close();

    const runs = Array.from({ length: N }, (_, i) =>
      startCli(sb, ["run", "PreToolUse"], JSON.stringify(payloadFor("PreToolUse", { session_id: `c${i}`, tool_input: { command: `echo ${i}` } }))),
    );
    started.push(...runs);
    let writersDone = false;
    const allDone = Promise.all(runs.map((r) => r.done)).finally(() => (writersDone = true));

    // One reader, in a loop, for as long as the writers run (and once more after).
    const reads: { code: number | null; count: number }[] = [];
    const read = async () => {
      const r = await sb.run(["log", "--json", "--limit", "1000"]);
      let count = -1;
      try {
        count = (JSON.parse(r.stdout) as unknown[]).length;
      } catch {
        count = -1;
      }
      reads.push({ code: r.code, count });
    };
    const reader = (async () => {
      do await read();
      while (!writersDone);
      await read();
    })();

    const results = await allDone;
    await reader;

    // Every writer judged its event and was able to log it.
    for (const [i, r] of results.entries()) {
      expect(r.code, `run ${i}: ${r.stderr}`).to.equal(0);
      expect(r.stderr, `run ${i}`).not.to.match(/not logged|not recorded|qhooks: warning/);
    }
    const outcomes = results.map((r) => JSON.parse(r.stdout) as { sessionId: string; seq: number });
    const runSeqs = outcomes.map((o) => o.seq);
    expect(new Set(runSeqs).size).to.equal(N);

    // Every event is there once, each with its outcome and its hook result.
    const records = await logJson(sb, ["--limit", "1000"]);
    expect(records).to.have.length(N);
    expect(records.map((r) => r.sessionId).sort()).to.deep.equal(outcomes.map((o) => o.sessionId).sort());
    expect(records.map((r) => r.seq).sort((a, b) => a - b)).to.deep.equal([...runSeqs].sort((a, b) => a - b));
    for (const r of records) {
      expect(r.decision, r.sessionId!).to.equal("none");
      expect(r.hooks.map((h) => [h.name, h.outcome, h.stderr.trim()])).to.deep.equal([["slow-ok", "success", `checked ${r.sessionId}`]]);
      expect(outcomes.find((o) => o.sessionId === r.sessionId)!.seq).to.equal(r.seq);
    }

    // The journal holds one snapshot (shared by all), and per event its arrival and its outcome; seqs are
    // contiguous and the chain checks out.
    const kinds = readOnly(
      sb.db,
      (db) => db.prepare("SELECT kind, count(*) AS n FROM journal GROUP BY kind ORDER BY kind").all() as { kind: string; n: number }[],
    );
    expect(kinds).to.deep.equal([
      { kind: "event", n: N },
      { kind: "outcome", n: N },
      { kind: "snapshot", n: 1 },
    ]);
    const total = journalCount(sb.db);
    const seqRange = readOnly(sb.db, (db) => db.prepare("SELECT min(seq) AS lo, max(seq) AS hi FROM journal").get() as { lo: number; hi: number });
    expect(seqRange).to.deep.equal({ lo: 1, hi: total });
    const verify = await sb.run(["verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout.trim()).to.equal(`ok: ${total} records`);

    // The reader never saw a broken file or half-written JSON; it saw the log grow.
    expect(reads.length, "reads during and after the appends").to.be.at.least(2);
    for (const [i, r] of reads.entries()) {
      expect(r.code, `read ${i}`).to.equal(0);
      expect(r.count, `read ${i}`).to.be.within(0, N);
    }
    expect(reads.map((r) => r.count)).to.deep.equal(reads.map((r) => r.count).sort((a, b) => a - b));
    expect(reads[reads.length - 1]!.count).to.equal(N);
  });
  it("processes that find no log yet create it together: one schema, every event kept, a valid chain", async () => {
    const file = `${sb.root}/fresh/dir/events.db`;
    const N = 8;
    const runs = Array.from({ length: N }, (_, i) =>
      startCli(sb, ["--db", file, "record", "SessionStart"], JSON.stringify(payloadFor("SessionStart", { session_id: `f${i}` }))),
    );
    started.push(...runs);
    const results = await Promise.all(runs.map((r) => r.done));
    for (const [i, r] of results.entries()) expect([r.code, r.stdout, r.stderr], `record ${i}`).to.deep.equal([0, "", ""]);
    const records = await logJson(sb, ["--db", file, "--limit", "1000"]);
    expect(records.map((r) => r.sessionId).sort()).to.deep.equal(Array.from({ length: N }, (_, i) => `f${i}`).sort());
    expect(records.every((r) => r.decision === "recorded")).to.equal(true);
    const verify = await sb.run(["--db", file, "verify"]);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout.trim()).to.equal(`ok: ${N} records`);
  });
});
