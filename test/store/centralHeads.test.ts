import { expect } from "chai";
import { generateKeyPairSync } from "node:crypto";
import { chmodSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { recordHash } from "../../src/store/journal/hashFormat.js";
import { publicKeyText, signHead } from "../../src/store/logKey.js";
import { journalRowOf } from "../../src/store/postgres/placeRows.js";
import { headSignatureHolds } from "../../src/store/signedHeads.js";
import { Sandbox } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase, withClient } from "../support/postgres.js";
import { seedLog, type SeedEvent } from "./storeHelpers.js";

const t0 = Date.parse("2026-02-01T08:00:00.000Z");
const events = (n: number, session: string): SeedEvent[] =>
  Array.from({ length: n }, (_, i) => ({ ts: new Date(t0 + i * 1000), event: "PreToolUse", sessionId: session, matchValue: "Bash", decision: "none" }));

/**
 * What someone holding the database but not a laptop's key can do: edit a record of its chain, recompute every hash
 * after it (the chain's links need only its log id) and move the chain's head.
 */
async function rewriteChain(url: string, writer: string, seq: number): Promise<void> {
  await withClient(url, async (c) => {
    await c.query("UPDATE qhooks_journal SET match_value = $3 WHERE writer_id = $1 AND seq = $2", [writer, seq, Buffer.from("Write")]);
    const { rows } = await c.query("SELECT * FROM qhooks_journal WHERE writer_id = $1 ORDER BY seq", [writer]);
    let previous = "";
    for (const r of rows) {
      const { hash: _old, ...content } = journalRowOf(r);
      const hash = recordHash(content, previous, writer)!;
      await c.query("UPDATE qhooks_journal SET hash = $2 WHERE gid = $1", [r.gid, hash]);
      previous = hash;
    }
    await c.query("UPDATE qhooks_writers SET head_hash = $2 WHERE writer_id = $1", [writer, previous]);
  });
}

describe("central signed heads: ship keeps each laptop's signed heads, verify holds the central chains to them", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let db: TestDatabase;
  let other: string;
  beforeEach(async () => {
    sb = new Sandbox();
    db = await createTestDatabase();
    other = sb.file("other/events.db", "");
    await seedLog(sb.db, events(12, "one"));
    await seedLog(other, events(9, "two"));
    for (const log of [sb.db, other]) {
      const r = await sb.run(["ship", "--to", db.url, "--batch", "5"], { env: { QHOOKS_DB: log } });
      expect(r.code, r.stderr).to.equal(0);
    }
  });
  afterEach(async () => {
    await sb.cleanup();
    await db.drop();
  });
  const verifyCentral = () => sb.run(["verify"], { env: { QHOOKS_DB: db.url } });
  const writerOf = async (session: string) =>
    withClient(db.url, async (c) => {
      const { rows } = await c.query<{ writer_id: string }>("SELECT DISTINCT writer_id FROM qhooks_journal WHERE session_id = $1", [Buffer.from(session)]);
      return rows[0]!.writer_id;
    });

  it("each batch's head is signed by the laptop's key and kept centrally, with the key pinned; verify says they match", async () => {
    const heads = await withClient(db.url, async (c) => (await c.query("SELECT * FROM qhooks_signed_heads ORDER BY writer_id, seq")).rows);
    expect(heads.length).to.be.at.least(4);
    const pub = publicKeyText((await import("node:crypto")).createPublicKey(readFileSync(`${sb.db}.pub`, "utf8")));
    const mine = await writerOf("one");
    for (const h of heads) {
      expect(
        headSignatureHolds({ log: h.writer_id, seq: Number(h.seq), hash: h.hash, time: h.signed_at, publicKey: h.public_key, signature: h.signature }),
      ).to.equal(true);
      if (h.writer_id === mine) expect(h.public_key).to.equal(pub);
    }
    const keys = await withClient(db.url, async (c) => (await c.query("SELECT public_key FROM qhooks_writers")).rows.map((r) => r.public_key));
    expect(keys.every((k) => typeof k === "string")).to.equal(true);
    // The laptop keeps the same heads beside its log.
    expect(readFileSync(`${sb.db}.heads`, "utf8").trim().split("\n").length).to.be.at.least(2);
    const r = await verifyCentral();
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/ok: \d+ records \(\d+ signed heads still match\)/);
  });

  it("a central row edited by hand, the chain recomputed and its head moved: verify fails, naming the writer", async () => {
    const mine = await writerOf("one");
    await rewriteChain(db.url, mine, 4);
    const r = await verifyCentral();
    expect(r.code).to.equal(3);
    const lines = r.stderr.trim().split("\n");
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include(`chain ${mine} (`).and.include("rows edited here and the chain recomputed without the writer's key");
  });

  it("a central row edited by hand (chain left as it was): one line naming the writer and the record", async () => {
    const theirs = await writerOf("two");
    await withClient(db.url, (c) => c.query("UPDATE qhooks_journal SET match_value = $2 WHERE writer_id = $1 AND seq = 3", [theirs, Buffer.from("Write")]));
    const r = await verifyCentral();
    expect(r.code).to.equal(3);
    expect(r.stderr.trim().split("\n")).to.have.length(1);
    expect(r.stderr).to.include(`chain ${theirs} (`).and.include("record 3 ");
  });

  it("signed heads removed, a head re-signed with another key, a head's signature edited: each named in one line", async () => {
    const mine = await writerOf("one");
    const fail = async (why: string) => {
      const r = await verifyCentral();
      expect(r.code, r.stdout).to.equal(3);
      expect(r.stderr.trim().split("\n")).to.have.length(1);
      expect(r.stderr).to.include(`chain ${mine} (`).and.include(why);
    };
    const saved = await withClient(db.url, async (c) => (await c.query("SELECT * FROM qhooks_signed_heads WHERE writer_id = $1", [mine])).rows);
    await withClient(db.url, (c) => c.query("DELETE FROM qhooks_signed_heads WHERE writer_id = $1", [mine]));
    await fail("signed heads that are gone");
    // The chain rewritten and a head signed for it with a key of one's own.
    await rewriteChain(db.url, mine, 2);
    const forged = generateKeyPairSync("ed25519");
    await withClient(db.url, async (c) => {
      const { rows } = await c.query<{ head_seq: string; head_hash: string }>("SELECT head_seq, head_hash FROM qhooks_writers WHERE writer_id = $1", [mine]);
      const head = { log: mine, seq: Number(rows[0]!.head_seq), hash: rows[0]!.head_hash, time: new Date().toISOString() };
      await c.query("INSERT INTO qhooks_signed_heads VALUES ($1, $2, $3, $4, $5, $6)", [
        mine,
        head.seq,
        head.hash,
        head.time,
        publicKeyText(forged.publicKey),
        signHead(forged.privateKey, head),
      ]);
    });
    await fail("a key changed without a rotation record");
    await withClient(db.url, async (c) => {
      await c.query("DELETE FROM qhooks_signed_heads WHERE writer_id = $1", [mine]);
      const h = saved[0]!;
      await c.query("INSERT INTO qhooks_signed_heads VALUES ($1, $2, $3, $4, $5, $6)", [mine, h.seq, "0".repeat(64), h.signed_at, h.public_key, h.signature]);
    });
    await fail("fails its signature: edited here");
  });

  it("a log shipped before heads were signed gets one on its next ship; a key that cannot be used is one warning and the records ship", async () => {
    await withClient(db.url, (c) => c.query("DELETE FROM qhooks_signed_heads"));
    await withClient(db.url, (c) => c.query("UPDATE qhooks_writers SET public_key = NULL"));
    let r = await verifyCentral();
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include("2 chains with no signed head: links only");
    r = await sb.run(["ship", "--to", db.url]);
    expect(r.code, r.stderr).to.equal(0);
    r = await verifyCentral();
    expect(r.stdout).to.include("1 signed head still matches").and.include("1 chain with no signed head");
    // The other laptop's key, readable by others: refused in one warning, the records still ship.
    chmodSync(`${other}.key`, 0o644);
    await seedLog(other, events(3, "two-more"));
    r = await sb.run(["ship", "--to", db.url], { env: { QHOOKS_DB: other } });
    expect(r.code, r.stderr).to.equal(0);
    const signing = r.stderr
      .trim()
      .split("\n")
      .filter((l) => !l.includes("from a machine named"));
    expect(signing).to.have.length(1);
    expect(signing[0]).to.include("the shipped heads are not signed").and.include("has mode 0644");
    expect(r.stdout).to.include("shipped");
  });

  it("export --evidence on the central database: one writer's session written; a record erased here (not on its laptop) still written, with its erasure record beside the chain", async () => {
    const file = sb.file("e.json", "");
    let r = await sb.run(["export", "--evidence", file, "--session", "one"], { env: { QHOOKS_DB: db.url } });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include(`of writer ${await writerOf("one")}`);
    const gid = await withClient(db.url, async (c) => {
      const { rows } = await c.query<{ gid: string }>("SELECT min(gid) AS gid FROM qhooks_journal WHERE kind = 'event' AND session_id = $1", [
        Buffer.from("one"),
      ]);
      return rows[0]!.gid;
    });
    r = await sb.run(["erase", "--seq", gid, "--why", "test"], { env: { QHOOKS_DB: db.url } });
    expect(r.code, r.stderr).to.equal(0);
    r = await sb.run(["export", "--evidence", file, "--session", "one"], { env: { QHOOKS_DB: db.url } });
    expect(r.code, r.stderr).to.equal(0);
    const evidence = JSON.parse(readFileSync(file, "utf8")) as { erasedHere?: unknown[] };
    expect(evidence.erasedHere?.length).to.be.at.least(1);
  });

  it("two laptops with the same host name: ship says so in one line, naming the other log; clocks hours apart: one line", async () => {
    const mine = await writerOf("one");
    await seedLog(other, events(2, "two-later"));
    let r = await sb.run(["ship", "--to", db.url], { env: { QHOOKS_DB: other } });
    expect(r.code, r.stderr).to.equal(0);
    const alike = r.stderr
      .trim()
      .split("\n")
      .filter((l) => l.includes("from a machine named"));
    expect(alike).to.have.length(1);
    expect(alike[0]).to.include(`log ${mine} also ships to`).and.include(hostname());
    // Records dated three hours after the database server's clock: the clock that wrote them was ahead.
    await seedLog(sb.db, [{ ts: new Date(Date.now() + 3 * 3_600_000), event: "PreToolUse", sessionId: "late", matchValue: "Bash", decision: "none" }]);
    r = await sb.run(["ship", "--to", db.url]);
    expect(r.code, r.stderr).to.equal(0);
    const clock = r.stderr
      .trim()
      .split("\n")
      .filter((l) => l.includes("clock"));
    expect(clock).to.have.length(1);
    expect(clock[0]).to.match(/record \d+ of log \S+ is dated .*more than an hour after the database server's clock/);
  });
});
