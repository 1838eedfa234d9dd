import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { signEveryOf } from "../../src/engine/openEventLog.js";
import { recordHash } from "../../src/store/journal/hashFormat.js";
import type { JournalRow } from "../../src/store/journal/record.js";
import { headsFileOf, readSignedHeads } from "../../src/store/signedHeads.js";
import { DEFAULT_SIGN_EVERY, PeriodicHeads } from "../../src/store/sqlite/periodicHeads.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { nonEmptyLines, readOnly, recordedEvent, sqlite3 } from "../store/storeHelpers.js";

const recorded = recordedEvent;

/** The chain's head signed every N records as the log is written (not only at ship and export). */
describe("heads signed every N records as the log is written", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  it("a log opened with signEvery 3: a head at each multiple of 3 crossed, signed by the log's key, matching the records; a batch crossing one signs its own head", async () => {
    const log = openSqliteLog(sb.db, { signEvery: 3 });
    for (let i = 0; i < 10; i++) await log.append([recorded(i)]);
    // One append of three records crossing 12: its head (13) is signed.
    await log.append([recorded(10), recorded(11), recorded(12)]);
    await log.close();
    const { heads, problem } = readSignedHeads(sb.db);
    expect(problem).to.equal(null);
    expect(heads.map((h) => h.seq)).to.deep.equal([3, 6, 9, 13]);
    for (const h of heads) expect(h.hash).to.equal(sqlite3(sb.db, `SELECT hash FROM journal WHERE seq = ${h.seq}`).trim());
    expect(existsSync(`${sb.db}.key`)).to.equal(true);
    const r = await sb.run(["--db", sb.db, "verify"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include("(4 signed heads still match)");
  });

  it("qhooks run signs every $QHOOKS_SIGN_EVERY records; a chain rewritten afterwards (hashes recomputed) fails verify; 0 signs none", async () => {
    for (const word of ["one", "two", "three"]) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s", tool_input: { command: `echo ${word}` } }), [], {
        QHOOKS_SIGN_EVERY: "2",
      });
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.equal("");
    }
    const { heads } = readSignedHeads(sb.db);
    expect(heads.length).to.be.at.least(2);
    // Someone without the key edits record 2 and recomputes every hash after it: the chain links, the heads do not.
    const rows = readOnly(sb.db, (d) => d.prepare("SELECT * FROM journal ORDER BY seq").all() as JournalRow[]);
    const logId = sqlite3(sb.db, "SELECT value FROM log_meta WHERE key = 'log_id'").trim();
    let previous = "";
    for (const row of rows) {
      const { hash: _old, ...content } = row;
      const edited = row.seq === 2 ? { ...content, match_value: "Write" } : content;
      const hash = recordHash(edited, previous, logId)!;
      sqlite3(sb.db, `UPDATE journal SET ${row.seq === 2 ? "match_value = 'Write', " : ""}hash = '${hash}' WHERE seq = ${row.seq}`);
      previous = hash;
    }
    const v = await sb.run(["--db", sb.db, "verify"]);
    expect(v.code, v.stdout).to.equal(3);
    expect(nonEmptyLines(v.stderr)).to.have.length(1);
    expect(v.stderr).to.include("rewritten after it was signed");

    const other = join(sb.root, "other.db");
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "t" }), ["--db", other], { QHOOKS_SIGN_EVERY: "0" });
    expect(r.code, r.stderr).to.equal(0);
    expect(existsSync(headsFileOf(other))).to.equal(false);
    expect(existsSync(`${other}.key`)).to.equal(false);
  });

  it("a key others may read: one warning (kind heads-unsigned) with the next append, nothing signed, the records written", async () => {
    const first = openSqliteLog(sb.db, { signEvery: 0 });
    await first.append([recorded(0)]);
    await first.close();
    const made = await sb.run(["--db", sb.db, "export", "--evidence", join(sb.root, "e.json"), "--session", "s"]);
    expect(made.code, made.stderr).to.equal(0);
    chmodSync(`${sb.db}.key`, 0o644);
    const before = readFileSync(headsFileOf(sb.db), "utf8");
    const log = openSqliteLog(sb.db, { signEvery: 1 });
    await log.append([recorded(1)]);
    await new Promise((resolve) => setImmediate(resolve));
    const next = await log.append([recorded(2)]);
    await log.close();
    expect(next.warnings.map((w) => w.kind)).to.deep.equal(["heads-unsigned"]);
    expect(next.warnings[0]!.message).to.include("the log's heads are not signed").and.include("mode 0644");
    expect(readFileSync(headsFileOf(sb.db), "utf8")).to.equal(before);
    expect(sqlite3(sb.db, "SELECT count(*) FROM journal WHERE kind = 'event'").trim()).to.equal("3");
  });

  it("PeriodicHeads: nothing when the head stays between two multiples; settled() waits for a signature due", async () => {
    const warnings: string[] = [];
    const heads = new PeriodicHeads(sb.db, 10, (w) => warnings.push(w.kind));
    heads.committed("log-1", { before: 1, seq: 9, hash: "a".repeat(64) });
    await heads.settled();
    expect(existsSync(headsFileOf(sb.db))).to.equal(false);
    heads.committed("log-1", { before: 9, seq: 11, hash: "b".repeat(64) });
    await heads.settled();
    expect(readSignedHeads(sb.db).heads.map((h) => [h.log, h.seq, h.hash])).to.deep.equal([["log-1", 11, "b".repeat(64)]]);
    expect(warnings).to.deep.equal([]);
  });

  it("signEveryOf: the default, a number, 0; anything else one line", () => {
    expect(signEveryOf({})).to.equal(DEFAULT_SIGN_EVERY);
    expect(signEveryOf({ QHOOKS_SIGN_EVERY: "" })).to.equal(DEFAULT_SIGN_EVERY);
    expect(signEveryOf({ QHOOKS_SIGN_EVERY: "250" })).to.equal(250);
    expect(signEveryOf({ QHOOKS_SIGN_EVERY: "0" })).to.equal(0);
    for (const bad of ["-1", "2.5", "ten"]) expect(() => signEveryOf({ QHOOKS_SIGN_EVERY: bad })).to.throw(/QHOOKS_SIGN_EVERY=.*expected a whole number/);
  });
});
