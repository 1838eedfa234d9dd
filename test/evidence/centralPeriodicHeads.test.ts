import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { expect } from "chai";
import { readSignedHeads } from "../../src/store/signedHeads.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { CLI, Sandbox, payloadFor } from "../support/sandbox.js";
import { recordedEvent, waitFor } from "../store/storeHelpers.js";
import { createTestDatabase, type TestDatabase, withClient } from "../support/postgres.js";

const recorded = recordedEvent;

/**
 * The heads a laptop signs between ships ($QHOOKS_SIGN_EVERY) reach the central database with the next ship, and
 * heads removed there are sent again by the next ship; the central verify names the records no head covers.
 * Real PostgreSQL, real `qhooks` processes.
 */
describe("ship sends every signed head of the shipped range, and puts back those removed centrally", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let db: TestDatabase;
  beforeEach(async () => {
    sb = new Sandbox();
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await sb.cleanup();
    await db.drop();
  });

  /** `n` more records in the local log, its head signed every 4 records. */
  async function write(from: number, n: number) {
    const log = openSqliteLog(sb.db, { signEvery: 4 });
    for (let i = from; i < from + n; i++) await log.append([recorded(i)]);
    await log.close();
  }
  const ship = () => sb.run(["--db", sb.db, "ship", "--to", db.url]);
  const verifyCentral = () => sb.run(["verify"], { env: { QHOOKS_DB: db.url } });
  const centralHeads = () =>
    withClient(
      db.url,
      async (c) => (await c.query<{ seq: string; signed_at: string }>("SELECT seq, signed_at FROM qhooks_signed_heads ORDER BY seq, signed_at")).rows,
    );
  const key = (h: { seq: number | string; time?: string; signed_at?: string }) => `${h.seq} ${h.time ?? h.signed_at}`;

  it("the periodic heads go with the ship, once; central verify holds the chain to as many heads as the laptop's", async () => {
    await write(0, 10);
    const first = await ship();
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr).to.not.include("missing centrally");
    const local = readSignedHeads(sb.db).heads;
    // Heads at 4 and 8 signed as written, and the ship's own at 10.
    expect(local.map((h) => h.seq)).to.deep.equal([4, 8, 10]);
    expect((await centralHeads()).map(key)).to.deep.equal(local.map(key));
    // Heads signed after that ship (12, 16) are sent by the next one with its records; none is sent twice.
    await write(10, 7);
    const second = await ship();
    expect(second.code, second.stderr).to.equal(0);
    const again = await ship();
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.include("up to date");
    const now = readSignedHeads(sb.db).heads;
    expect(now.map((h) => h.seq)).to.deep.equal([4, 8, 10, 12, 16, 17]);
    expect((await centralHeads()).map(key)).to.deep.equal(now.map(key));
    const laptop = await sb.run(["--db", sb.db, "verify"]);
    expect(laptop.stdout).to.include("6 signed heads still match");
    const v = await verifyCentral();
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.include("6 signed heads still match");
    expect(v.stdout).to.not.include("no signed head covers");
  });

  it("heads signed by qhooks run ($QHOOKS_SIGN_EVERY=2) reach the central database with the next ship", async () => {
    for (const word of ["one", "two", "three"]) {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { session_id: "s", tool_input: { command: `echo ${word}` } }), ["--db", sb.db], {
        QHOOKS_SIGN_EVERY: "2",
      });
      expect(r.code, r.stderr).to.equal(0);
    }
    const before = readSignedHeads(sb.db).heads;
    expect(before.length).to.be.at.least(2);
    const r = await ship();
    expect(r.code, r.stderr).to.equal(0);
    const local = readSignedHeads(sb.db).heads;
    expect((await centralHeads()).map(key)).to.deep.equal(local.map(key));
    const v = await verifyCentral();
    expect(v.stdout).to.include(`${local.length} signed heads still match`);
  });

  it("heads removed centrally: verify names the uncovered records; the next ship sends them again and says so in one line", async () => {
    await write(0, 10);
    expect((await ship()).code).to.equal(0);
    await write(10, 7);
    expect((await ship()).code).to.equal(0);
    // Someone with the database removes the writer's newest heads (17 and 16): the chain is held to 12 only.
    await withClient(db.url, (c) => c.query("DELETE FROM qhooks_signed_heads WHERE seq > 12"));
    const v = await verifyCentral();
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.include("4 signed heads still match");
    const writer = readSignedHeads(sb.db).heads[0]!.log;
    expect(v.stdout).to.match(new RegExp(`^records 13-17 of writer ${writer} \\(.*\\): links only, no signed head covers them$`, "m"));
    // The laptop still has them: the next ship puts them back, and says it did.
    const r = await ship();
    expect(r.code, r.stderr).to.equal(0);
    const said = r.stderr.split("\n").filter((l) => l.includes("missing centrally"));
    expect(said, r.stderr).to.have.length(1);
    expect(said[0]).to.match(/^qhooks: warning: 2 signed heads were missing centrally and were sent again/);
    expect((await centralHeads()).map(key)).to.deep.equal(readSignedHeads(sb.db).heads.map(key));
    const after = await verifyCentral();
    expect(after.code, after.stderr).to.equal(0);
    expect(after.stdout).to.include("6 signed heads still match");
    expect(after.stdout).to.not.include("no signed head covers");
    // Nothing more is missing: the next ship says nothing of it.
    const quiet = await ship();
    expect(quiet.stderr).to.not.include("missing centrally");
  });

  it("a database that lost the whole log (or a new one at the same URL): one line saying so, not a count of missing heads", async () => {
    await write(0, 10);
    expect((await ship()).code).to.equal(0);
    await withClient(db.url, (c) => c.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public"));
    const r = await ship();
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include("shipped 10 records");
    expect(r.stderr).to.not.include("missing centrally");
    const said = r.stderr.split("\n").filter((l) => l.includes("though an earlier ship sent them there"));
    expect(said, r.stderr).to.have.length(1);
    expect(said[0]).to.match(
      /^qhooks: warning: postgres:\/\/.* had no record of log [0-9a-f-]+, though an earlier ship sent them there: .*shipped again from the start$/,
    );
    expect((await centralHeads()).map(key)).to.deep.equal(readSignedHeads(sb.db).heads.map(key));
    const v = await verifyCentral();
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.not.include("no signed head covers");
  });

  it("a line of <log>.heads edited: the heads before it are sent, the ship says the rest were not", async () => {
    await write(0, 10);
    const lines = readFileSync(`${sb.db}.heads`, "utf8").trim().split("\n");
    expect(lines).to.have.length(2);
    writeFileSync(`${sb.db}.heads`, `${lines[0]}\n${lines[1]!.replace(/"seq":8/, '"seq":7')}\n`);
    const r = await ship();
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(
      /^qhooks: warning: line 2 of .*\.heads is not a signed head, or its signature fails: edited: the heads from there on were not sent/m,
    );
    expect((await centralHeads()).map((h) => Number(h.seq)))
      .to.include(4)
      .and.not.include(7);
  });

  it("records shipped while the key could not sign are uncovered centrally, and the ship does not call them removed", async () => {
    await write(0, 10);
    expect((await ship()).code).to.equal(0);
    // The key becomes unusable: the records after 10 ship unsigned.
    writeFileSync(`${sb.db}.key`, "not a key", { mode: 0o600 });
    await write(10, 3);
    const r = await ship();
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.include("the shipped heads are not signed");
    expect(r.stderr).to.not.include("missing centrally");
    const v = await verifyCentral();
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.include("3 signed heads still match");
    expect(v.stdout).to.match(/^records 11-13 of writer .*: links only, no signed head covers them$/m);
  });

  it("ship --watch sends the heads signed while it runs, and puts back a head removed between its rounds", async () => {
    await write(0, 5);
    const child = spawn(process.execPath, [CLI, "--db", sb.db, "ship", "--to", db.url, "--watch", "--interval", "200ms"], {
      env: sb.env(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      await waitFor("the first round", () => stdout.includes("shipped"), 30_000);
      await write(5, 8);
      const same = async () => {
        const local = readSignedHeads(sb.db).heads.map(key);
        return JSON.stringify((await centralHeads()).map(key)) === JSON.stringify(local) && local.length >= 4;
      };
      await waitFor("the heads signed since", same, 30_000);
      // 4, 5 (the first round's), 8, 12, 13: the periodic ones went with the rounds.
      expect(readSignedHeads(sb.db).heads.map((h) => h.seq)).to.include.members([4, 8, 12]);
      await withClient(db.url, (c) => c.query("DELETE FROM qhooks_signed_heads WHERE seq = 8"));
      await waitFor("the removed head put back", () => stderr.includes("1 signed head was missing centrally and was sent again"), 30_000);
      expect(await same()).to.equal(true);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await done).to.equal(0);
  });
});
