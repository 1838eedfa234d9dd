import { expect } from "chai";
import { readSignedHeads } from "../../src/store/signedHeads.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { sqlite3 } from "../store/storeHelpers.js";

/** Issue 27: the chain head is signed at each ship, and the local log is held to it from then on. */
describe("ship signs the head it shipped through (<log>.heads)", () => {
  let sb: Sandbox;
  let db: TestDatabase;

  before(async () => {
    sb = new Sandbox();
    db = await createTestDatabase();
    for (const word of ["one", "two"]) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s", tool_input: { command: `echo ${word}` } }), ["--db", sb.db]);
      expect(r.code, r.stderr).to.equal(0);
    }
  });
  after(async () => {
    await db.drop();
    await sb.cleanup();
  });

  it("a ship that copies records signs their head; one with nothing new signs nothing more", async () => {
    const r = await sb.run(["--db", sb.db, "ship", "--to", db.url]);
    expect(r.code, r.stderr).to.equal(0);
    const through = Number(/through record (\d+)/.exec(r.stdout)?.[1]);
    expect(through).to.equal(Number(sqlite3(sb.db, "SELECT max(seq) FROM journal").trim()));
    const { heads, problem } = readSignedHeads(sb.db);
    expect(problem).to.equal(null);
    expect(heads.map((h) => h.seq)).to.deep.equal([through]);
    expect(heads[0]!.hash).to.equal(sqlite3(sb.db, `SELECT hash FROM journal WHERE seq = ${through}`).trim());
    const again = await sb.run(["--db", sb.db, "ship", "--to", db.url]);
    expect(again.code, again.stderr).to.equal(0);
    expect(readSignedHeads(sb.db).heads).to.have.length(1);
    const v = await sb.run(["--db", sb.db, "verify"]);
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.include("(1 signed head still matches)");
  });
});
