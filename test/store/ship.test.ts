import { expect } from "chai";
import { spawn } from "node:child_process";
import pg from "pg";
import { QhooksError } from "../../src/errors.js";
import { openPostgresLog } from "../../src/store/postgres/postgresEventLog.js";
import { shipLog } from "../../src/store/ship.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { CLI, Sandbox } from "../support/sandbox.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { seedLog, sqlite3, waitFor, type SeedEvent } from "./storeHelpers.js";
import { isErasedPayload } from "../../src/schema/erasedPayload.js";

const t0 = Date.parse("2026-02-01T08:00:00.000Z");
function events(n: number, from = 0, session = "ship"): SeedEvent[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      ts: new Date(t0 + i * 1000),
      event: "PreToolUse",
      sessionId: `${session}-${i % 5}`,
      matchValue: "Bash",
      decision: i % 4 === 0 ? "deny" : "none",
      reason: i % 4 === 0 ? "no" : null,
      hooks: i % 2 === 0 ? [{ name: "guard", decision: i % 4 === 0 ? "deny" : "none", durationMs: i % 7 }] : [],
    } satisfies SeedEvent;
  });
}

async function all<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

/** How many records of each chain the central database holds, and whether any (writer, seq) is there twice. */
async function central(url: string): Promise<{ records: number; duplicates: number; chains: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ records: string; distinct: string; chains: string }>(
      "SELECT count(*) AS records, count(DISTINCT (writer_id, seq)) AS distinct, count(DISTINCT writer_id) AS chains FROM qhooks_journal",
    );
    return { records: Number(rows[0]!.records), duplicates: Number(rows[0]!.records) - Number(rows[0]!.distinct), chains: Number(rows[0]!.chains) };
  } finally {
    await client.end();
  }
}

const localRecords = (file: string) => Number(sqlite3(file, "SELECT count(*) FROM journal").trim());

describe("ship: a local log to the central PostgreSQL database", function () {
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

  it("copies every record; the central log lists what the local one does, and its chain verifies", async () => {
    await seedLog(sb.db, events(60));
    const first = await shipLog({ from: sb.db, to: db.url, batch: 25 });
    expect(first.shipped).to.equal(localRecords(sb.db));
    const local = openSqliteLog(sb.db, { mustExist: true });
    const remote = openPostgresLog(db.url, { mustExist: true });
    try {
      const strip = (r: { seq: number }) => ({ ...r, seq: 0 });
      expect((await all(remote.events({}, 1000))).map(strip)).to.deep.equal((await all(local.events({}, 1000))).map(strip));
      expect(await remote.stats({})).to.deep.equal(await local.stats({}));
      expect(await remote.sessions({})).to.deep.equal(await local.sessions({}));
      const verified = await remote.verify();
      expect(verified).to.deep.equal({ ok: true, records: first.shipped, erased: 0, from: 1, unsignedChains: 1 });
    } finally {
      await local.close();
      await remote.close();
    }
  });

  it("idempotent and resumable: run twice, or stopped half-way, nothing is lost or doubled", async () => {
    await seedLog(sb.db, events(40));
    let batches = 0;
    const stopped = shipLog({
      from: sb.db,
      to: db.url,
      batch: 10,
      onBatch: () => {
        if (++batches === 2) throw new Error("stopped half-way");
      },
    });
    await stopped.then(
      () => expect.fail("should stop"),
      (e: Error) => expect(e.message).to.include("stopped half-way"),
    );
    expect((await central(db.url)).records, "the batch that was under way is not there").to.be.within(10, 20);
    const resumed = await shipLog({ from: sb.db, to: db.url, batch: 10 });
    const again = await shipLog({ from: sb.db, to: db.url, batch: 10 });
    expect(again.shipped).to.equal(0);
    expect(resumed.head).to.equal(localRecords(sb.db));
    expect(await central(db.url)).to.deep.equal({ records: localRecords(sb.db), duplicates: 0, chains: 1 });
    await seedLog(sb.db, events(5, 40));
    const more = await shipLog({ from: sb.db, to: db.url });
    expect(more.head).to.equal(localRecords(sb.db));
    expect(more.shipped).to.be.greaterThan(5);
    const remote = openPostgresLog(db.url, { mustExist: true });
    try {
      expect(await remote.count({})).to.equal(45);
      expect((await remote.verify()).ok).to.equal(true);
    } finally {
      await remote.close();
    }
  });

  it("two logs of two machines keep a chain each; verify checks both", async () => {
    const other = sb.file("other/events.db", "");
    await seedLog(sb.db, events(10));
    await seedLog(other, events(8, 0, "other"));
    await Promise.all([shipLog({ from: sb.db, to: db.url, batch: 3 }), shipLog({ from: other, to: db.url, batch: 3 })]);
    expect(await central(db.url)).to.include({ chains: 2, duplicates: 0, records: localRecords(sb.db) + localRecords(other) });
    const remote = openPostgresLog(db.url, { mustExist: true });
    try {
      expect(await remote.count({})).to.equal(18);
      expect(await remote.verify()).to.deep.include({ ok: true });
    } finally {
      await remote.close();
    }
  });

  it("a local log edited after it was written is refused, naming the record where its chain breaks; what came before is shipped", async () => {
    await seedLog(sb.db, events(20));
    await shipLog({ from: sb.db, to: db.url });
    await seedLog(sb.db, events(10, 20));
    const total = localRecords(sb.db);
    const edited = total - 5;
    sqlite3(sb.db, `UPDATE journal SET reason = 'edited' WHERE seq = ${edited}`);
    const failed = await shipLog({ from: sb.db, to: db.url, batch: 4 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failed).to.be.instanceOf(QhooksError).and.have.property("code", "integrity");
    expect((failed as Error).message).to.include(`record ${edited} `);
    expect((await central(db.url)).records).to.be.below(edited);
    const r = await sb.run(["ship", "--to", db.url]);
    expect(r.code).to.equal(3);
    expect(r.stderr.trim().split("\n")).to.have.length(1);
    expect(r.stderr).to.include(`record ${edited}`);
  });

  /** The central log's events as `qhooks log --json` gives them, and what `qhooks verify` says there. */
  const centralLog = async () =>
    JSON.parse((await sb.run(["log", "--json", "--limit", "all"], { env: { QHOOKS_DB: db.url } })).stdout) as {
      seq: number;
      sessionId: string;
      payload: unknown;
    }[];
  const localLog = async () => JSON.parse((await sb.run(["log", "--json", "--limit", "all"])).stdout) as { seq: number; sessionId: string; payload: unknown }[];
  const strip = <T extends { seq: number }>(rows: T[]) => rows.map((r) => ({ ...r, seq: 0 }));
  const verifyCentral = async () => {
    const remote = openPostgresLog(db.url, { mustExist: true });
    try {
      return await remote.verify();
    } finally {
      await remote.close();
    }
  };

  it("a local log erased and pruned before it ships: the central chain verifies from the anchor, erased text stays erased; shipping again copies nothing", async () => {
    await seedLog(
      sb.db,
      events(40).map((e) => ({ ...e, payload: { session_id: e.sessionId, note: `secret-of-${e.sessionId}` } })),
    );
    const erased = await sb.run(["erase", "--session", "ship-3"]);
    expect(erased.code, erased.stderr).to.equal(0);
    const pruned = await sb.run(["prune", "--before", new Date(t0 + 20_000).toISOString(), "--json"]);
    expect(pruned.code, pruned.stderr).to.equal(0);
    const from = (JSON.parse(pruned.stdout) as { from: number }).from;
    expect(from).to.be.greaterThan(1);

    const r = await sb.run(["ship", "--to", db.url]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^shipped \d+ records of log/);
    expect(r.stderr)
      .to.include(`${from - 1} records of log`)
      .and.include("pruned from it before they shipped");
    expect(await central(db.url)).to.deep.equal({ records: localRecords(sb.db), duplicates: 0, chains: 1 });
    const v = await sb.run(["verify", "--json"], { env: { QHOOKS_DB: db.url } });
    expect(v.code, v.stdout + v.stderr).to.equal(0);
    const localVerify = JSON.parse((await sb.run(["verify", "--json"])).stdout) as { erased: number };
    expect(JSON.parse(v.stdout)).to.include({ ok: true, records: localRecords(sb.db), erased: localVerify.erased });
    expect(localVerify.erased).to.be.greaterThan(0);
    const listed = await centralLog();
    expect(strip(listed)).to.deep.equal(strip(await localLog()));
    expect(JSON.stringify(listed)).to.not.include("secret-of-ship-3");
    expect(JSON.stringify(listed)).to.include("secret-of-ship-2");
    expect(listed.filter((e) => e.sessionId === "ship-3").map((e) => e.payload)).to.satisfy(
      (p: unknown[]) => p.length > 0 && p.every((x) => isErasedPayload(x)),
    );

    const again = await sb.run(["ship", "--to", db.url]);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.match(/^up to date/);
    expect(await central(db.url)).to.deep.equal({ records: localRecords(sb.db), duplicates: 0, chains: 1 });
  });

  it("erased after it shipped: the next ship erases the central copies too; pruned past the central head: the chain goes on after the gap", async () => {
    await seedLog(
      sb.db,
      events(30).map((e) => ({ ...e, payload: { session_id: e.sessionId, note: `secret-of-${e.sessionId}` } })),
    );
    await shipLog({ from: sb.db, to: db.url, batch: 7 });
    expect(JSON.stringify(await centralLog())).to.include("secret-of-ship-1");
    expect((await sb.run(["erase", "--session", "ship-1"])).code).to.equal(0);
    const after = await shipLog({ from: sb.db, to: db.url });
    expect(after).to.include({ skipped: 0 });
    const text = JSON.stringify(await centralLog());
    expect(text).to.not.include("secret-of-ship-1");
    expect(text).to.include("secret-of-ship-2");
    const localErased = (JSON.parse((await sb.run(["verify", "--json"])).stdout) as { erased: number }).erased;
    expect(localErased).to.equal(12);
    expect(await verifyCentral()).to.deep.include({ ok: true, erased: localErased });

    // New records, then a local prune that reaches past what the central database has: those never ship.
    const head = after.head;
    await seedLog(sb.db, events(20, 30));
    expect((await sb.run(["prune", "--before", new Date(t0 + 40_000).toISOString()])).code).to.equal(0);
    const gap = await shipLog({ from: sb.db, to: db.url, batch: 5 });
    expect(gap.skipped).to.be.greaterThan(0);
    expect(gap.head).to.equal(Number(sqlite3(sb.db, "SELECT max(seq) FROM journal").trim()));
    const remote = openPostgresLog(db.url, { mustExist: true });
    try {
      expect(await remote.verify()).to.deep.include({ ok: true });
      expect(await remote.count({})).to.equal(30 + 10);
    } finally {
      await remote.close();
    }
    expect((await central(db.url)).records).to.equal(head + (gap.head - head - gap.skipped));
    expect((await shipLog({ from: sb.db, to: db.url })).shipped).to.equal(0);
    // A record of the central copy deleted by hand is still caught.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query("DELETE FROM qhooks_journal WHERE gid = (SELECT max(gid) FROM qhooks_journal WHERE kind = 'event')");
      await client.query("DELETE FROM qhooks_journal WHERE gid = (SELECT min(gid) FROM qhooks_journal WHERE seq > $1)", [head + gap.skipped + 1]);
    } finally {
      await client.end();
    }
    expect(await verifyCentral()).to.deep.include({ ok: false });
  });

  it("erased on the laptop and then again on the central database before the laptop's erasure records arrived: the chain verifies once they have", async () => {
    await seedLog(
      sb.db,
      events(10).map((e) => ({ ...e, payload: { session_id: e.sessionId, note: `secret-of-${e.sessionId}` } })),
    );
    expect((await sb.run(["erase", "--session", "ship-1"])).code).to.equal(0);
    let batches = 0;
    await shipLog({
      from: sb.db,
      to: db.url,
      batch: 4,
      onBatch: () => {
        if (++batches === 2) throw new Error("stopped");
      },
    }).catch(() => undefined);
    const admin = openPostgresLog(db.url, { writer: "host:admin" });
    try {
      expect((await admin.erase({ sessionId: "ship-1" })).events, "what had arrived of that session").to.be.greaterThan(0);
      await shipLog({ from: sb.db, to: db.url });
      const localErased = (JSON.parse((await sb.run(["verify", "--json"])).stdout) as { erased: number }).erased;
      expect(await admin.verify()).to.deep.include({ ok: true, erased: localErased });
    } finally {
      await admin.close();
    }
  });

  it("qhooks ship: two processes at once, one killed half-way, then again: every record once", async () => {
    await seedLog(sb.db, events(300));
    const start = () => {
      const child = spawn(process.execPath, [CLI, "ship", "--to", db.url, "--batch", "20"], { env: sb.env(), stdio: ["ignore", "pipe", "pipe"] });
      const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      return { child, done };
    };
    const a = start();
    const b = start();
    const killed = start();
    await waitFor("a first batch", async () => (await central(db.url).catch(() => ({ records: 0 }))).records > 0, 30_000, 5);
    killed.child.kill("SIGKILL");
    expect(await a.done).to.equal(0);
    expect(await b.done).to.equal(0);
    await killed.done;
    const r = await sb.run(["ship", "--to", db.url]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^up to date: log \S+ has \d+ records in postgres:/);
    expect(await central(db.url)).to.deep.equal({ records: localRecords(sb.db), duplicates: 0, chains: 1 });
  });

  it("qhooks ship --watch keeps shipping new records until stopped; a server that is down is one line", async () => {
    await seedLog(sb.db, events(5));
    const child = spawn(process.execPath, [CLI, "ship", "--to", db.url, "--watch", "--interval", "200ms"], {
      env: sb.env(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await waitFor("the first round", () => stdout.includes("shipped"), 30_000);
    await seedLog(sb.db, events(5, 5));
    await waitFor("the new records", async () => (await central(db.url)).records === localRecords(sb.db), 30_000);
    child.kill("SIGTERM");
    expect(await done).to.equal(0);
    const down = await sb.run(["ship", "--to", "postgres://postgres@127.0.0.1:1/qhooks"]);
    expect(down.code).to.equal(1);
    expect(down.stderr.trim().split("\n")).to.have.length(1);
    expect(down.stderr).to.match(/^qhooks: cannot connect to the event log postgres:\/\/postgres@127\.0\.0\.1:1\/qhooks: connection refused/);
  });
});
