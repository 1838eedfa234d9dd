import { expect } from "chai";
import { readFileSync, rmSync } from "node:fs";
import { recordHash } from "../../src/store/journal/hashFormat.js";
import { journalRowOf } from "../../src/store/postgres/placeRows.js";
import { Sandbox } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase, withClient } from "../support/postgres.js";
import { seedLog, type SeedEvent } from "../store/storeHelpers.js";

const t0 = Date.parse("2026-02-01T08:00:00.000Z");
const events = (n: number, from: number): SeedEvent[] =>
  Array.from({ length: n }, (_, i) => ({ ts: new Date(t0 + (from + i) * 1000), event: "PreToolUse", sessionId: "one", matchValue: "Bash", decision: "none" }));

describe("key rotation: a key record signed by the old key hands the log to a new one; a lost key is a visible break", function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let db: TestDatabase;
  beforeEach(async () => {
    sb = new Sandbox();
    db = await createTestDatabase();
    await seedLog(sb.db, events(6, 0));
    const r = await sb.run(["ship", "--to", db.url, "--batch", "4"], { env: { QHOOKS_DB: sb.db } });
    expect(r.code, r.stderr).to.equal(0);
  });
  afterEach(async () => {
    await sb.cleanup();
    await db.drop();
  });
  const local = (args: string[]) => sb.run(args, { env: { QHOOKS_DB: sb.db } });
  const central = () => sb.run(["verify"], { env: { QHOOKS_DB: db.url } });
  const shipMore = async () => {
    await seedLog(sb.db, events(5, 100));
    const r = await local(["ship", "--to", db.url, "--batch", "4"]);
    expect(r.code, r.stderr).to.equal(0);
  };
  const writer = () => withClient(db.url, async (c) => (await c.query<{ writer_id: string }>("SELECT writer_id FROM qhooks_writers")).rows[0]!.writer_id);

  it("rotate: the new key signs the heads after it, and local and central verify accept it", async () => {
    const before = readFileSync(`${sb.db}.pub`, "utf8");
    const r = await local(["key", "rotate"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^rotated: record \d+ hands the log from key ed25519:[0-9a-f]{16} to ed25519:[0-9a-f]{16}, signed by the old key\n$/);
    expect(readFileSync(`${sb.db}.pub`, "utf8")).to.not.equal(before);
    await shipMore();
    const keys = await withClient(db.url, async (c) => (await c.query("SELECT DISTINCT public_key FROM qhooks_signed_heads")).rows);
    expect(keys).to.have.length(2);
    for (const v of [await local(["verify"]), await central()]) {
      expect(v.code, v.stderr).to.equal(0);
      expect(v.stdout).to.match(/^ok: \d+ records \(.*signed heads still match\)\n$/);
    }
  });

  it("a key changed without a key record: local and central verify fail, centrally naming the writer, in one line", async () => {
    rmSync(`${sb.db}.key`);
    rmSync(`${sb.db}.pub`);
    await shipMore();
    const v = await central();
    expect(v.code, v.stdout).to.equal(3);
    expect(v.stderr.trim().split("\n")).to.have.length(1);
    expect(v.stderr)
      .to.include(`chain ${await writer()} (`)
      .and.include("a key changed without a rotation record");
    const l = await local(["verify"]);
    expect(l.code, l.stdout).to.equal(3);
    expect(l.stderr.trim().split("\n")).to.have.length(1);
    expect(l.stderr).to.include("the log's key changed without a rotation record");
  });

  it("reset --lost: verify passes with a key break line naming the record, locally and centrally; never a plain ok", async () => {
    rmSync(`${sb.db}.key`);
    rmSync(`${sb.db}.pub`);
    const r = await local(["key", "reset", "--lost"]);
    expect(r.code, r.stderr).to.equal(0);
    const at = /^reset: record (\d+) says key ed25519:[0-9a-f]{16} was lost/.exec(r.stdout)?.[1];
    expect(at, r.stdout).to.be.a("string");
    await shipMore();
    const l = await local(["verify"]);
    expect(l.code, l.stderr).to.equal(0);
    expect(l.stdout.trim().split("\n")[1]).to.match(
      new RegExp(`^key break: from record ${at} on, the chain is vouched for by key ed25519:[0-9a-f]{16}, introduced without the old key's signature`),
    );
    const v = await central();
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout.trim().split("\n")[1]).to.match(new RegExp(`^key break: chain ${await writer()} \\(.*\\): from record ${at} on`));
    const json = JSON.parse((await sb.run(["verify", "--json"], { env: { QHOOKS_DB: db.url } })).stdout);
    expect(json.keyBreaks).to.have.length(1);
    expect(json.keyBreaks[0].seq).to.equal(Number(at));
  });

  it("a key made by a ship after the file was removed: verify fails until reset --lost records it, then shows the break", async () => {
    rmSync(`${sb.db}.key`);
    rmSync(`${sb.db}.pub`);
    await shipMore();
    expect((await central()).code).to.equal(3);
    const made = readFileSync(`${sb.db}.pub`, "utf8");
    const r = await local(["key", "reset", "--lost"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(readFileSync(`${sb.db}.pub`, "utf8"), "the key the ship made is the one recorded").to.equal(made);
    await shipMore();
    for (const v of [await local(["verify"]), await central()]) {
      expect(v.code, v.stderr).to.equal(0);
      expect(v.stdout).to.match(/\nkey break: .*from record \d+ on/);
    }
  });

  it("a prune past the rotation record copies it forward: verify still follows the keys", async () => {
    expect((await local(["key", "rotate"])).code).to.equal(0);
    await shipMore();
    const p = await local(["prune", "--before", "2026-03-01"]);
    expect(p.code, p.stderr).to.equal(0);
    await shipMore();
    const v = await local(["verify"]);
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.match(/^ok: \d+ records \(from record \d+: older records were pruned; \d+ signed heads? still match/);
    // The central copy holds the original key record and the copy the prune shipped: followed once.
    const c = await central();
    expect(c.code, c.stderr).to.equal(0);
  });

  it("a prune on the central database past a shipped chain's rotation record copies it forward: verify and evidence still follow the keys", async () => {
    expect((await local(["key", "rotate"])).code).to.equal(0);
    // Events of today after the rotation: they stay; the rotation record and what came before it go.
    const now = Date.now();
    await seedLog(
      sb.db,
      Array.from({ length: 4 }, (_, i) => ({
        ts: new Date(now - (4 - i) * 1000),
        event: "PreToolUse",
        sessionId: "two",
        matchValue: "Bash",
        decision: "none",
      })),
    );
    expect((await local(["ship", "--to", db.url])).code).to.equal(0);
    const id = await writer();
    const onCentral = (args: string[]) => sb.run(args, { env: { QHOOKS_DB: db.url } });
    const keyRows = () =>
      withClient(db.url, async (c) =>
        (await c.query<{ writer_id: string; body: Buffer }>("SELECT writer_id, body FROM qhooks_journal WHERE kind = 'key' ORDER BY gid")).rows.map((r) => ({
          writer: r.writer_id,
          body: JSON.parse(r.body.toString("utf8")) as { chain?: string; seq?: number; change: string },
        })),
      );
    const original = await keyRows();
    expect(original.map((k) => k.writer)).to.deep.equal([id]);
    for (const round of [1, 2]) {
      const p = await onCentral(["prune", "--before", "2026-03-01"]);
      expect(p.code, p.stderr).to.equal(0);
      const rows = await keyRows();
      // The chain's own record is gone; one copy, in the maintaining writer's chain, names the chain and its seq.
      expect(rows, `round ${round}`).to.have.length(1);
      expect(rows[0]!.writer).to.not.equal(id);
      expect(rows[0]!.body).to.include({ chain: id, change: "rotate" });
      const v = await onCentral(["verify"]);
      expect(v.code, v.stderr).to.equal(0);
      expect(v.stdout).to.match(/signed heads? still match/);
    }
    const file = sb.file("two.json", "");
    const e = await onCentral(["export", "--evidence", file, "--session", "two"]);
    expect(e.code, e.stderr).to.equal(0);
    const check = await sb.run(["verify", "--evidence", file, "--key", `${sb.db}.pub`]);
    expect(check.code, check.stderr).to.equal(0);
    // Without the copy, the new key's heads would have no record vouching for them.
    await withClient(db.url, (c) => c.query("DELETE FROM qhooks_journal WHERE kind = 'key'"));
    const broken = await onCentral(["verify"]);
    expect(broken.code).to.equal(3);
    expect(broken.stderr).to.include("a key changed without a rotation record");
  });

  it("reset without --lost, or while the key is there: refused in one line", async () => {
    const a = await local(["key", "reset"]);
    expect(a.code).to.equal(1);
    expect(a.stderr.trim().split("\n")).to.have.length(1);
    const c = await local(["key", "bogus"]);
    expect(c.code).to.equal(1);
    expect(c.stderr).to.equal("qhooks: key bogus: expected key rotate, or key reset --lost\n");
    const b = await local(["key", "reset", "--lost"]);
    expect(b.code).to.not.equal(0);
    expect(b.stderr).to.include("is not lost");
  });

  it("a rotation record forged (its new key swapped, the chain recomputed centrally): verify fails naming the writer", async () => {
    expect((await local(["key", "rotate"])).code).to.equal(0);
    await shipMore();
    const id = await writer();
    await withClient(db.url, async (c) => {
      const { rows } = await c.query("SELECT * FROM qhooks_journal WHERE writer_id = $1 ORDER BY seq", [id]);
      let previous = "";
      for (const r of rows) {
        let row = journalRowOf(r);
        if (row.kind === "key") {
          const body = JSON.parse(row.body);
          const { generateKeyPairSync } = await import("node:crypto");
          body.to = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" }).toString("base64");
          row = { ...row, body: JSON.stringify(body) };
          await c.query("UPDATE qhooks_journal SET body = $2 WHERE gid = $1", [r.gid, Buffer.from(row.body)]);
        }
        const { hash: _old, ...content } = row;
        const hash = recordHash(content, previous, id)!;
        await c.query("UPDATE qhooks_journal SET hash = $2 WHERE gid = $1", [r.gid, hash]);
        previous = hash;
      }
      await c.query("UPDATE qhooks_writers SET head_hash = $2 WHERE writer_id = $1", [id, previous]);
    });
    const v = await central();
    expect(v.code, v.stdout).to.equal(3);
    expect(v.stderr.trim().split("\n")).to.have.length(1);
    expect(v.stderr).to.include(`chain ${id} (`).and.include("is not signed by the key it retires");
  });

  it("evidence spanning a rotation: verifies against the old key through the key record; a key record altered in the file fails", async () => {
    const oldPub = sb.file("old.pub", readFileSync(`${sb.db}.pub`, "utf8"));
    expect((await local(["key", "rotate"])).code).to.equal(0);
    await seedLog(sb.db, events(3, 200));
    const file = sb.file("evidence.json", "");
    const e = await local(["export", "--evidence", file, "--session", "one"]);
    expect(e.code, e.stderr).to.equal(0);
    const v = await sb.run(["verify", "--evidence", file, "--key", oldPub]);
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout).to.include("which the file's key records hand the log to from the key given with --key");
    const evidence = JSON.parse(readFileSync(file, "utf8"));
    const keyEntry = evidence.chain.find((c: { record?: { kind: string } }) => c.record?.kind === "key");
    expect(keyEntry, "the key record is shown whole").to.not.equal(undefined);
    const body = JSON.parse(keyEntry.record.body);
    body.to = body.from;
    keyEntry.record.body = JSON.stringify(body);
    const altered = sb.file("altered.json", JSON.stringify(evidence));
    const bad = await sb.run(["verify", "--evidence", altered, "--key", oldPub]);
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr.trim().split("\n")).to.have.length(1);
    expect(bad.stderr).to.include("(key) does not match its hash");
  });
});
