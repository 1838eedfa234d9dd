import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { readSignedHeads } from "../../src/store/signedHeads.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { sqlite3 } from "../store/storeHelpers.js";

/**
 * The local fallback log (where events go that the central PostgreSQL log cannot take) is signed like any local
 * log: its head every $QHOOKS_SIGN_EVERY records as events go there, and again when it is shipped; `qhooks verify`
 * holds it to those heads. Real `qhooks` processes; a central log that refuses connections, then a real one.
 */
describe("the fallback log's heads are signed", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let db: TestDatabase | null = null;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(async () => {
    sb.cleanup();
    await db?.drop();
    db = null;
  });

  // Nothing listens on port 1: every connection is refused at once, and each event goes to the fallback file.
  const NOWHERE = "postgres://qhooks@127.0.0.1:1/qhooks_central";

  it("every $QHOOKS_SIGN_EVERY records as events go there, by the fallback file's own key; verify holds it to them; shipping signs its head", async () => {
    const fallback = join(sb.home, ".qhooks", "fallback.db");
    for (const word of ["one", "two", "three"]) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s", tool_input: { command: `echo ${word}` } }), [], {
        QHOOKS_DB: NOWHERE,
        QHOOKS_SIGN_EVERY: "2",
      });
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.include("fallback").and.not.include("heads are not signed");
    }
    expect(sqlite3(fallback, "SELECT count(*) FROM journal WHERE kind = 'event'").trim()).to.equal("3");
    const signed = readSignedHeads(fallback);
    expect(signed.problem).to.equal(null);
    // A configuration snapshot (seq 1), then the three events, one record each (no hook): heads at 2 and 4.
    expect(signed.heads.map((h) => h.seq)).to.deep.equal([2, 4]);
    for (const h of signed.heads) expect(h.hash).to.equal(sqlite3(fallback, `SELECT hash FROM journal WHERE seq = ${h.seq}`).trim());
    expect(existsSync(`${fallback}.key`)).to.equal(true);
    const v = await sb.run(["--db", fallback, "verify"]);
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.match(/\(\d+ signed heads? still match\)/);

    // Shipped to a central log that answers: the head it shipped through is signed too.
    db = await createTestDatabase();
    const before = signed.heads.length;
    const s = await sb.run(["--db", fallback, "ship", "--to", db.url]);
    expect(s.code, s.stderr).to.equal(0);
    const after = readSignedHeads(fallback).heads;
    expect(after.length).to.equal(before + 1);
    expect(after.at(-1)!.seq).to.equal(Number(sqlite3(fallback, "SELECT max(seq) FROM journal").trim()));
  });

  it("QHOOKS_SIGN_EVERY=0: the fallback file gets no key and no heads as events go there", async () => {
    const fallback = join(sb.home, ".qhooks", "fallback.db");
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s" }), [], { QHOOKS_DB: NOWHERE, QHOOKS_SIGN_EVERY: "0" });
    expect(r.code, r.stderr).to.equal(0);
    expect(existsSync(fallback)).to.equal(true);
    expect(existsSync(`${fallback}.key`)).to.equal(false);
    expect(readSignedHeads(fallback).heads).to.deep.equal([]);
  });
});
