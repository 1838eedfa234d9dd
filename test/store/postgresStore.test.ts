import { expect } from "chai";
import pg from "pg";
import type { EventEntry } from "../../src/store/eventLog.js";
import { contentDigest, linkHash } from "../../src/store/journal/hashFormat.js";
import { PG_SCHEMA_VERSION } from "../../src/store/postgres/migrations.js";
import { journalRowOf } from "../../src/store/postgres/placeRows.js";
import { openPostgresLog, type PostgresEventLog } from "../../src/store/postgres/postgresEventLog.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { eventLogSuite } from "./suite/eventLogSuite.js";
import { makeOutcome, type SeedEvent } from "./storeHelpers.js";

// The shared suite of the store port, on PostgreSQL: each log a database of its own, dropped afterwards.
const made: TestDatabase[] = [];
eventLogSuite({
  name: "PostgreSQL",
  fresh: async () => {
    const db = await createTestDatabase();
    made.push(db);
    return { log: openPostgresLog(db.url), again: async () => openPostgresLog(db.url, { mustExist: true }) };
  },
  cleanup: async () => {
    for (const db of made.splice(0)) await db.drop();
  },
});

/** Several chains in one database: what erase and prune write, and what verify then checks, chain by chain. */
describe("erasure and retention on the central database, chain by chain", function () {
  this.timeout(60_000);
  let db: TestDatabase;
  const opened: PostgresEventLog[] = [];
  const open = (writer: string) => {
    const log = openPostgresLog(db.url, { writer });
    opened.push(log);
    return log;
  };
  beforeEach(async () => (db = await createTestDatabase()));
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((l) => l.close()));
    await db.drop();
  });
  const t0 = Date.parse("2025-06-01T00:00:00.000Z");
  const entry = (writer: string, minute: number, note: string): EventEntry => ({
    kind: "event",
    ts: new Date(t0 + minute * 60_000),
    source: "record",
    event: "Stop",
    sessionId: `${writer}-s`,
    matchValue: null,
    projectDir: "/p",
    payload: JSON.stringify({ session_id: `${writer}-s`, note }),
    snapshot: null,
    rejection: null,
    replay: null,
    outcome: null,
  });
  async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  it("erase and prune by a third machine: each chain keeps its numbering and verifies; the records that say so are in the third one's chain", async () => {
    const a = open("host:a");
    const b = open("host:b");
    for (let m = 0; m < 10; m++) {
      await a.append([entry("a", m, `a-secret-${m}`)]);
      await b.append([entry("b", m, `b-secret-${m}`)]);
    }
    const admin = open("host:admin");
    expect(await admin.erase({ pattern: "secret-6" })).to.deep.equal({ events: 2, records: 2, leftovers: [{ kind: "server-copies" }] });
    expect(await admin.erase({ pattern: "secret-3" })).to.deep.include({ events: 2, records: 2 });
    const pruned = await admin.prune(new Date(t0 + 5 * 60_000));
    // The erasure records about what stays stay (and the later ones after them in their chain).
    expect(pruned).to.include({ records: 10, events: 10 });
    expect(await admin.verify()).to.deep.include({ ok: true, erased: 2, from: pruned.from });
    expect(await admin.erase({ pattern: "secret-7" })).to.deep.include({ events: 2, records: 2 });
    await a.append([entry("a", 20, "later")]);
    expect(await b.verify()).to.deep.include({ ok: true, erased: 4 });
    const chains = await sql<{ writer_id: string; kinds: string }>(
      "SELECT writer_id, string_agg(DISTINCT kind, ',' ORDER BY kind) AS kinds FROM qhooks_journal GROUP BY writer_id ORDER BY writer_id",
    );
    expect(chains).to.deep.equal([
      { writer_id: "host:a", kinds: "event" },
      { writer_id: "host:admin", kinds: "erasure,prune" },
      { writer_id: "host:b", kinds: "event" },
    ]);
    const anchors = await sql<{ writer_id: string; anchor_seq: string }>("SELECT writer_id, anchor_seq::text FROM qhooks_writers ORDER BY writer_id");
    expect(anchors).to.deep.equal([
      { writer_id: "host:a", anchor_seq: "5" },
      { writer_id: "host:admin", anchor_seq: "0" },
      { writer_id: "host:b", anchor_seq: "5" },
    ]);

    // A second prune that reaches the admin chain's first prune records: every anchor is named again.
    const second = await admin.prune(new Date(t0 + 8 * 60_000 + 1));
    expect(second.events).to.equal(8);
    expect(await admin.verify()).to.deep.include({ ok: true });
    expect(
      (await sql<{ n: string }>("SELECT count(*)::text AS n FROM qhooks_journal WHERE writer_id = 'host:admin' AND seq <= 3"))[0]!.n,
      "the first prune's records went",
    ).to.equal("0");
  });

  it("what verify still catches after a prune: a kept record deleted, an anchor moved by hand, an erased record edited", async () => {
    const a = open("host:a");
    for (let m = 0; m < 6; m++) await a.append([entry("a", m, `note-${m}`)]);
    await a.prune(new Date(t0 + 3 * 60_000));
    await a.erase({ pattern: "note-4" });
    expect(await a.verify()).to.deep.include({ ok: true, erased: 1 });
    await sql("UPDATE qhooks_journal SET session_id = convert_to('other', 'UTF8') WHERE writer_id = 'host:a' AND seq = 5");
    expect(await a.verify()).to.deep.include({ ok: false, chain: "host:a", firstBad: 5 });
    await sql("UPDATE qhooks_journal SET session_id = convert_to('a-s', 'UTF8') WHERE writer_id = 'host:a' AND seq = 5");
    expect(await a.verify()).to.deep.include({ ok: true });
    await sql(
      "UPDATE qhooks_writers SET anchor_seq = 4, anchor_hash = (SELECT hash FROM qhooks_journal WHERE writer_id = 'host:a' AND seq = 4) WHERE writer_id = 'host:a'",
    );
    await sql("DELETE FROM qhooks_journal WHERE writer_id = 'host:a' AND seq = 4");
    const moved = await a.verify();
    expect(moved).to.deep.include({ ok: false, chain: "host:a", firstBad: 5 });
    expect((moved as { problem: string }).problem).to.include("no prune record says so");
  });
});

describe("PostgreSQL migrations", function () {
  this.timeout(60_000);
  it("a database of schema 1 with records is brought up to date when opened: the records stay and verify, erase and prune work", async () => {
    const db = await createTestDatabase();
    const entry = (n: number): EventEntry => ({
      kind: "event",
      ts: new Date(Date.parse("2025-01-01T00:00:00.000Z") + n * 60_000),
      source: "record",
      event: "Stop",
      sessionId: "m",
      matchValue: null,
      projectDir: "/p",
      payload: JSON.stringify({ session_id: "m", n }),
      snapshot: null,
      rejection: null,
      replay: null,
      outcome: null,
    });
    try {
      const log = openPostgresLog(db.url, { writer: "host:m" });
      for (let n = 0; n < 4; n++) await log.append([entry(n)]);
      await log.close();
      // Back to schema 1, as a qhooks before erasure on PostgreSQL left it.
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        // Its records as that qhooks wrote them: format 4, with no origin.
        let previous = "";
        for (const r of (await client.query("SELECT * FROM qhooks_journal WHERE writer_id = 'host:m' ORDER BY seq")).rows) {
          const row = journalRowOf(r);
          previous = linkHash("host:m", row.seq, previous, contentDigest({ ...row, format: 4 }));
          await client.query("UPDATE qhooks_journal SET format = 4, hash = $2 WHERE gid = $1", [r.gid, previous]);
        }
        await client.query("UPDATE qhooks_writers SET head_hash = $1 WHERE writer_id = 'host:m'", [previous]);
        await client.query(`ALTER TABLE qhooks_journal DROP COLUMN machine, DROP COLUMN os_user, DROP COLUMN judged_by;
          ALTER TABLE qhooks_writers DROP COLUMN anchor_seq, DROP COLUMN anchor_hash, DROP COLUMN public_key;
          DROP TABLE qhooks_signed_heads;
          DROP INDEX qhooks_journal_erasures; DROP INDEX qhooks_journal_prunes; DROP INDEX qhooks_hooks_stats; ALTER TABLE qhooks_hooks DROP COLUMN level;
          CREATE INDEX qhooks_hooks_names ON qhooks_hooks (name, duration_ms) WHERE live; DELETE FROM qhooks_schema WHERE version > 1`);
      } finally {
        await client.end();
      }
      const again = openPostgresLog(db.url, { writer: "host:m", mustExist: true });
      try {
        expect(await again.verify()).to.deep.include({ ok: true, records: 4 });
        expect(await again.erase({ pattern: '"n":3' })).to.deep.equal({ events: 1, records: 1, leftovers: [{ kind: "server-copies" }] });
        expect(await again.prune(new Date(Date.parse("2025-01-01T00:02:00.000Z")))).to.include({ events: 2 });
        expect(await again.verify()).to.deep.include({ ok: true, erased: 1 });
      } finally {
        await again.close();
      }
      const check = new pg.Client({ connectionString: db.url });
      await check.connect();
      try {
        expect((await check.query<{ v: number }>("SELECT max(version) AS v FROM qhooks_schema")).rows[0]!.v).to.equal(PG_SCHEMA_VERSION);
      } finally {
        await check.end();
      }
    } finally {
      await db.drop();
    }
  });

  it("a database of schema 5 whose hook runs were placed without their level gets them from the outcomes it holds", async () => {
    const db = await createTestDatabase();
    const seed: SeedEvent = {
      ts: new Date("2025-01-01T00:00:00.000Z"),
      event: "Stop",
      sessionId: "l",
      decision: "none",
      hooks: [{ name: "check.sh", level: "user", durationMs: 7 }, { name: "check.sh" }],
    };
    const levels = async (log: PostgresEventLog) => (await log.stats({})).hooks.map((h) => [h.name, h.level, h.runs]);
    try {
      const log = openPostgresLog(db.url, { writer: "host:l" });
      const [seq] = await log.append([
        {
          kind: "event",
          ts: seed.ts,
          source: "dispatch",
          event: "Stop",
          sessionId: "l",
          matchValue: null,
          projectDir: "/p",
          payload: "{}",
          snapshot: null,
          rejection: null,
          replay: null,
          outcome: null,
        },
      ]);
      await log.append([{ kind: "outcome", ts: seed.ts, eventSeq: seq!, outcome: { ...makeOutcome(seed), seq: seq! } }]);
      const expected = [
        ["check.sh", "project", 1],
        ["check.sh", "user", 1],
      ];
      expect(await levels(log)).to.deep.equal(expected);
      await log.close();
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        await client.query("ALTER TABLE qhooks_hooks DROP COLUMN level; DELETE FROM qhooks_schema WHERE version > 5");
      } finally {
        await client.end();
      }
      const again = openPostgresLog(db.url, { writer: "host:l", mustExist: true });
      try {
        expect(await levels(again)).to.deep.equal(expected);
      } finally {
        await again.close();
      }
    } finally {
      await db.drop();
    }
  });
});
