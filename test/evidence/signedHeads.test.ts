import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { recordHash } from "../../src/store/journal/hashFormat.js";
import type { JournalRow } from "../../src/store/journal/record.js";
import { headsFileOf, readSignedHeads } from "../../src/store/signedHeads.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { nonEmptyLines, readOnly, sqlite3 } from "../store/storeHelpers.js";

/** The heads an evidence export signed, kept in <log>.heads: `qhooks verify` holds the log to them. */
describe("signed heads beside the log (<log>.heads) and qhooks verify", () => {
  let sb: Sandbox;
  let copies = 0;

  before(async () => {
    sb = new Sandbox();
    for (const word of ["one", "two", "three"]) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s", tool_input: { command: `echo ${word}` } }), ["--db", sb.db]);
      expect(r.code, r.stderr).to.equal(0);
    }
    const r = await sb.run(["--db", sb.db, "export", "--evidence", join(sb.root, "e.json"), "--session", "s"]);
    expect(r.code, r.stderr).to.equal(0);
  });
  after(() => sb.cleanup());

  /** A copy of the log with its key files and heads, to damage. */
  function copy(): string {
    const target = join(sb.root, `copy-${++copies}.db`);
    for (const suffix of ["", "-wal", "-shm", ".key", ".pub", ".heads"]) if (existsSync(sb.db + suffix)) copyFileSync(sb.db + suffix, target + suffix);
    return target;
  }

  const headSeq = () => Number(sqlite3(sb.db, "SELECT max(seq) FROM journal").trim());

  it("each export appends the head it signed; verify checks it and says so", async () => {
    const { heads, problem } = readSignedHeads(sb.db);
    expect(problem).to.equal(null);
    expect(heads).to.have.length(1);
    expect(heads[0]!.seq).to.equal(headSeq());
    const r = await sb.run(["--db", copy(), "verify"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout.trim()).to.match(/^ok: \d+ records \(1 signed head still matches\)$/);
    const json = await sb.run(["--db", copy(), "verify", "--json"]);
    expect(JSON.parse(json.stdout)).to.include({ ok: true, signedHeads: 1 });
  });

  it("records cut off the end after the head was signed: exit 3, naming the head's record", async () => {
    const db = copy();
    const seq = headSeq();
    sqlite3(db, `DELETE FROM journal WHERE seq = ${seq}`);
    const r = await sb.run(["--db", db, "verify"]);
    expect(r.code, r.stderr).to.equal(3);
    expect(nonEmptyLines(r.stderr)).to.have.length(1);
    expect(r.stderr).to.include(`record ${seq}`).and.include("cut off the end");
  });

  it("the last record rewritten with a recomputed hash (a chain that verifies on its own): exit 3", async () => {
    const db = copy();
    const seq = headSeq();
    const { row, previous, logId } = readOnly(db, (d) => ({
      row: d.prepare("SELECT * FROM journal WHERE seq = ?").get(seq) as JournalRow,
      previous: (d.prepare("SELECT hash FROM journal WHERE seq = ?").get(seq - 1) as { hash: string }).hash,
      logId: (d.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string }).value,
    }));
    const { hash: _old, ...content } = row;
    const decision = content.decision === "deny" ? "allow" : "deny";
    const forged = recordHash({ ...content, decision }, previous, logId)!;
    sqlite3(db, `UPDATE journal SET decision = '${decision}', hash = '${forged}' WHERE seq = ${seq}`);
    // Without the signed head, the rewritten chain passes.
    rmSync(headsFileOf(db));
    expect((await sb.run(["--db", db, "verify"])).code).to.equal(0);
    copyFileSync(headsFileOf(sb.db), headsFileOf(db));
    const r = await sb.run(["--db", db, "verify"]);
    expect(r.code, r.stderr).to.equal(3);
    expect(r.stderr).to.include(`record ${seq}`).and.include("rewritten after it was signed");
  });

  it("an edited heads file: exit 3, naming its line", async () => {
    const db = copy();
    const text = readFileSync(headsFileOf(db), "utf8");
    writeFileSync(headsFileOf(db), text.replace(/"seq":\d+/, '"seq":1'));
    const r = await sb.run(["--db", db, "verify"]);
    expect(r.code, r.stderr).to.equal(3);
    expect(r.stderr).to.include("line 1 of").and.include("signature fails");
  });
});
