import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { logJson, nonEmptyLines, sqlite3 } from "./storeHelpers.js";

/** Contract 7: the hash chain makes an edited, deleted or reordered record visible to `qhooks verify`. */
describe("tamper evidence (qhooks verify)", () => {
  let sb: Sandbox;
  let pristine: string;
  let eventSeqs: number[];
  let total: number;
  let copies = 0;

  before(async () => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: "cat >/dev/null; exit 0", name: "reader" })] } });
    for (const word of ["one", "two", "three"]) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "t", tool_input: { command: `echo ${word}` } }));
      expect(r.code).to.equal(0);
    }
    pristine = sb.db;
    eventSeqs = sqlite3(pristine, "SELECT seq FROM journal WHERE kind = 'event' ORDER BY seq").trim().split("\n").map(Number);
    total = Number(sqlite3(pristine, "SELECT count(*) FROM journal").trim());
    expect(eventSeqs).to.have.length(3);
  });
  after(() => sb.cleanup());

  /** A private copy of the good log to damage. */
  function copy(): string {
    const target = join(sb.root, `copy-${++copies}.db`);
    copyFileSync(pristine, target);
    for (const suffix of ["-wal", "-shm"]) if (existsSync(pristine + suffix)) copyFileSync(pristine + suffix, target + suffix);
    return target;
  }

  /** `qhooks verify`, and with `--json` too when asked (each call is a process: only where it adds something). */
  async function verify(db: string, json = false) {
    const text = await sb.run(["--db", db, "verify"]);
    const asJson = json ? await sb.run(["--db", db, "verify", "--json"]) : null;
    return { text, json: asJson, result: asJson ? (JSON.parse(asJson.stdout) as { ok: boolean; records: number; firstBad?: number; problem?: string }) : null };
  }

  function expectBroken(v: Awaited<ReturnType<typeof verify>>, firstBad: number) {
    expect(v.text.code, v.text.stderr).to.equal(3);
    expect(v.text.stdout).to.equal("");
    const lines = nonEmptyLines(v.text.stderr);
    expect(lines).to.have.length(1);
    expect(lines[0])
      .to.match(/^qhooks: /)
      .and.match(new RegExp(`\\brecord ${firstBad}\\b`));
    if (v.json) {
      expect(v.json.code).to.equal(3);
      expect(v.result).to.include({ ok: false, firstBad, records: firstBad - 1 });
    }
  }

  it("an intact log: ok: N records, exit 0", async () => {
    const v = await verify(copy(), true);
    expect(v.text.code).to.equal(0);
    expect(v.text.stdout.trim()).to.equal(`ok: ${total} records`);
    expect(v.text.stderr).to.equal("");
    expect(v.result).to.deep.equal({ ok: true, records: total, erased: 0, from: 1 });
  });

  it("a payload edited with the sqlite3 tool: exit 3, naming that record", async () => {
    const db = copy();
    const target = eventSeqs[1]!;
    sqlite3(db, `UPDATE journal SET body = replace(body, 'echo two', 'echo TWO') WHERE seq = ${target}`);
    expect(sqlite3(db, `SELECT body FROM journal WHERE seq = ${target}`)).to.include("echo TWO");
    expectBroken(await verify(db, true), target);
    // The log stays readable: verify reports, it does not hide.
    const records = await logJson(sb, ["--db", db]);
    expect(records.find((r) => r.seq === target)!.payload).to.deep.include({ tool_input: { command: "echo TWO" } });
  });

  it("a record's metadata edited (a decision turned around): exit 3, naming that record", async () => {
    const db = copy();
    const outcomeSeq = Number(sqlite3(db, `SELECT seq FROM journal WHERE kind = 'outcome' AND ref = ${eventSeqs[0]}`).trim());
    sqlite3(db, `UPDATE journal SET decision = 'allow' WHERE seq = ${outcomeSeq}`);
    expectBroken(await verify(db), outcomeSeq);
  });

  it("the newest record edited: exit 3, naming it", async () => {
    const db = copy();
    sqlite3(db, `UPDATE journal SET ts = '2000-01-01T00:00:00.000Z' WHERE seq = ${total}`);
    expectBroken(await verify(db), total);
  });

  it("a middle record deleted: exit 3, naming the missing one", async () => {
    const db = copy();
    const gone = eventSeqs[1]! + 1;
    sqlite3(db, `DELETE FROM journal WHERE seq = ${gone}`);
    const v = await verify(db, true);
    expectBroken(v, gone);
    expect(v.text.stderr).to.match(/missing/);
  });

  it("two records' bodies swapped: exit 3, naming the first", async () => {
    const db = copy();
    const [a, , b] = eventSeqs as [number, number, number];
    sqlite3(
      db,
      `UPDATE journal SET body = CASE seq WHEN ${a} THEN (SELECT body FROM journal WHERE seq = ${b}) ELSE (SELECT body FROM journal WHERE seq = ${a}) END WHERE seq IN (${a}, ${b})`,
    );
    expect(sqlite3(db, `SELECT body FROM journal WHERE seq = ${a}`)).to.include("echo three");
    expectBroken(await verify(db), a);
  });

  it("two whole records moved (seqs swapped, hashes and all): exit 3", async () => {
    const db = copy();
    const [a, , b] = eventSeqs as [number, number, number];
    sqlite3(db, `UPDATE journal SET seq = -1 WHERE seq = ${a}; UPDATE journal SET seq = ${a} WHERE seq = ${b}; UPDATE journal SET seq = ${b} WHERE seq = -1;`);
    expectBroken(await verify(db), a);
  });
});
