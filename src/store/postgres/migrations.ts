import type pg from "pg";
import { QhooksError } from "../../errors.js";

/**
 * Schema steps of the PostgreSQL log, applied in order, all pending ones in one transaction under an advisory lock
 * (so that several processes meeting an empty database create it once), each recorded in `qhooks_schema`. Shipped
 * steps are never edited, only appended to.
 *
 * Text that comes from outside (session ids, payloads, reasons, hook names...) is kept as `bytea` holding its UTF-8:
 * PostgreSQL's `text` cannot hold U+0000, which a payload may carry, and a record must read back exactly as it was
 * hashed. Words qhooks itself writes (kind, event, decision, status, times) are `text` in the "C" collation, so
 * that they sort and compare byte by byte, as in SQLite.
 */
export const PG_MIGRATIONS: ReadonlyArray<{ readonly version: number; readonly what: string; readonly sql: string }> = [
  {
    version: 1,
    what: "writers and their chains, the journal, and the audit tables kept in the same transactions",
    sql: `
      -- One row per chain: a machine writing directly, or a local log shipped here (its log id). The head is
      -- locked by each append to that chain, so that only writers of the same chain wait for each other.
      CREATE TABLE qhooks_writers (
        writer_id  text PRIMARY KEY,
        origin     text NOT NULL,                 -- direct | shipped
        label      text NOT NULL,                 -- the host name, or the host and path of the shipped log
        head_seq   bigint NOT NULL DEFAULT 0,     -- the chain's last record
        head_hash  text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE qhooks_journal (
        gid         bigserial PRIMARY KEY,        -- the record's number in this database (what qhooks shows as seq)
        writer_id   text NOT NULL REFERENCES qhooks_writers,
        seq         bigint NOT NULL,              -- its place in its writer's chain, contiguous from 1
        ts          text COLLATE "C" NOT NULL,
        kind        text COLLATE "C" NOT NULL,
        event       text COLLATE "C",
        session_id  bytea,
        match_value bytea,
        project_dir bytea,
        source      text COLLATE "C",
        ref         bigint,                       -- as hashed: the record it refers to, in its writer's numbering
        run_id      bytea,
        config_hash bytea,
        name        bytea,
        status      text COLLATE "C",
        decision    text COLLATE "C",
        blocked     smallint,
        duration_ms double precision,
        reason      bytea,
        body        bytea NOT NULL,
        hash        text NOT NULL,
        format      smallint NOT NULL,
        outcome     bytea,
        ref_gid     bigint,                       -- the record ref names, as a gid (not hashed)
        UNIQUE (writer_id, seq)
      );
      CREATE UNIQUE INDEX qhooks_journal_outcome_of ON qhooks_journal (ref_gid) WHERE kind = 'outcome';
      CREATE INDEX qhooks_journal_snapshots ON qhooks_journal (config_hash) WHERE kind = 'snapshot';
      CREATE INDEX qhooks_journal_replay_runs ON qhooks_journal (gid) WHERE kind = 'replay_run';
      -- Async hooks' results, listed with the event they name.
      CREATE INDEX qhooks_journal_hooks_of ON qhooks_journal (ref_gid, gid) WHERE kind = 'hook';

      -- One row per event, live or replayed, updated when its outcome comes.
      CREATE TABLE qhooks_events (
        gid         bigint PRIMARY KEY,
        ts          text COLLATE "C" NOT NULL,
        event       text COLLATE "C",
        session_id  bytea,
        match_value bytea,
        project_dir bytea,
        run_id      bytea,
        decision    text COLLATE "C",
        blocked     smallint NOT NULL,
        outcome_gid bigint
      );
      CREATE INDEX qhooks_events_event    ON qhooks_events (event, gid)       WHERE run_id IS NULL;
      CREATE INDEX qhooks_events_session  ON qhooks_events (session_id, gid)  WHERE run_id IS NULL;
      CREATE INDEX qhooks_events_match    ON qhooks_events (match_value, gid) WHERE run_id IS NULL;
      CREATE INDEX qhooks_events_decision ON qhooks_events (decision, gid)    WHERE run_id IS NULL;
      CREATE INDEX qhooks_events_blocked  ON qhooks_events (gid)              WHERE run_id IS NULL AND blocked = 1;
      CREATE INDEX qhooks_events_ts       ON qhooks_events (ts)               WHERE run_id IS NULL;
      CREATE INDEX qhooks_events_replay   ON qhooks_events (run_id, gid)      WHERE run_id IS NOT NULL;

      -- One row per hook run, from the outcome's hooks (their output stays in the journal).
      CREATE TABLE qhooks_hooks (
        event_gid   bigint NOT NULL,
        idx         integer NOT NULL,
        live        boolean NOT NULL,
        name        bytea NOT NULL,
        command     bytea,
        status      text COLLATE "C" NOT NULL,
        duration_ms double precision NOT NULL,
        PRIMARY KEY (event_gid, idx)
      );
      CREATE INDEX qhooks_hooks_names ON qhooks_hooks (name, duration_ms) WHERE live;

      -- The Stop-loop guard's input: blocked live Stop outcomes of a session in a row.
      CREATE TABLE qhooks_stop_streaks (session_id bytea PRIMARY KEY, streak integer NOT NULL);
    `,
  },
  {
    version: 2,
    what: "erasure and retention: each chain's anchor, and the records that say what was erased or pruned",
    sql: `
      -- Where a chain starts once its oldest records were pruned: the last deleted record and its hash. A prune
      -- record names it (through, hash), as in the SQLite log's log_meta.
      ALTER TABLE qhooks_writers ADD COLUMN anchor_seq bigint NOT NULL DEFAULT 0, ADD COLUMN anchor_hash text NOT NULL DEFAULT '';
      -- Erasure records (ref_gid: the record erased) and prune records, which verify reads before walking the chains.
      CREATE INDEX qhooks_journal_erasures ON qhooks_journal (ref_gid) WHERE kind = 'erasure';
      CREATE INDEX qhooks_journal_prunes ON qhooks_journal (gid) WHERE kind = 'prune';
    `,
  },
  {
    version: 3,
    what: "stats of every hook read off one covering index",
    sql: `
      -- stats: per hook name its runs by status, its duration percentiles and its newest event, in index order
      -- (no sort, no visit of the table): a million events' hook runs are summed in tens of milliseconds.
      DROP INDEX qhooks_hooks_names;
      CREATE INDEX qhooks_hooks_stats ON qhooks_hooks (name, duration_ms) INCLUDE (status, event_gid) WHERE live;
    `,
  },
  {
    version: 4,
    what: "who and where: each record's machine, OS user and judging host (hash format 5 covers them)",
    sql: `
      -- As hashed (NULL for records written before, in formats 3 and 4). writer_id and seq are the record's
      -- writer and its number in its origin log.
      ALTER TABLE qhooks_journal ADD COLUMN machine bytea, ADD COLUMN os_user bytea, ADD COLUMN judged_by text COLLATE "C";
    `,
  },
  {
    version: 5,
    what: "signed heads of shipped chains: each laptop's heads, signed with its log's key, kept with its records",
    sql: `
      -- What ship sends with each batch: the head of the laptop's chain, signed with the laptop log's Ed25519 key
      -- (which stays on the laptop). verify holds the chain to them, so that rows edited here and the chain
      -- recomputed after them fail without the laptop's key. public_key: its SPKI DER bytes in base64.
      CREATE TABLE qhooks_signed_heads (
        writer_id  text NOT NULL REFERENCES qhooks_writers,
        seq        bigint NOT NULL,
        hash       text NOT NULL,
        signed_at  text COLLATE "C" NOT NULL,
        public_key text NOT NULL,
        signature  text NOT NULL,
        PRIMARY KEY (writer_id, seq, signed_at)
      );
      -- The key of the writer's first signed head: a head signed by another key is named by verify.
      ALTER TABLE qhooks_writers ADD COLUMN public_key text;
    `,
  },
  {
    version: 6,
    what: "each hook run's settings level, so that a user's and a project's hook of one name are counted apart",
    sql: `
      -- The level is in every outcome's JSON; the runs placed before this step take it from there (each outcome
      -- parsed once). A damaged body is skipped, as placing rows skips it: its runs keep a NULL level.
      ALTER TABLE qhooks_hooks ADD COLUMN level bytea;
      CREATE OR REPLACE FUNCTION pg_temp.qhooks_hook_list(body bytea) RETURNS jsonb LANGUAGE plpgsql AS $$
      DECLARE list jsonb;
      BEGIN
        list := convert_from(body, 'UTF8')::jsonb -> 'hooks';
        RETURN CASE WHEN jsonb_typeof(list) = 'array' THEN list ELSE '[]'::jsonb END;
      EXCEPTION WHEN others THEN
        RETURN '[]'::jsonb;
      END $$;
      UPDATE qhooks_hooks h SET level = convert_to(x.level, 'UTF8')
        FROM (SELECT v.gid, e.n - 1 AS idx, e.hook ->> 'level' AS level
              FROM qhooks_events v JOIN qhooks_journal j ON j.gid = v.outcome_gid
              CROSS JOIN LATERAL jsonb_array_elements(pg_temp.qhooks_hook_list(CASE WHEN j.kind = 'outcome' THEN j.body ELSE j.outcome END))
                WITH ORDINALITY AS e(hook, n)) x
        WHERE h.event_gid = x.gid AND h.idx = x.idx AND x.level IS NOT NULL;
    `,
  },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;

/** Any 64-bit number: the advisory lock that serialises migrations of one database. */
const MIGRATION_LOCK = 0x71686f6f6b73;

/** The schema version of the database; null when it holds no qhooks log. */
export async function schemaVersion(client: pg.Client): Promise<number | null> {
  const found = await client.query<{ t: string | null }>("SELECT to_regclass('qhooks_schema')::text AS t");
  if (found.rows[0]?.t == null) return null;
  const { rows } = await client.query<{ v: number | null }>("SELECT max(version) AS v FROM qhooks_schema");
  return rows[0]?.v ?? 0;
}

/** Brings the database up to the latest version; with `mustExist`, a database with no log is an error instead. */
export async function migratePg(client: pg.Client, where: string, mustExist: boolean): Promise<void> {
  const version = await schemaVersion(client);
  if (version !== null && version > PG_SCHEMA_VERSION) {
    throw new QhooksError("log", `the event log ${where} has schema version ${version}, newer than this qhooks knows (${PG_SCHEMA_VERSION}); upgrade qhooks`);
  }
  if (version === PG_SCHEMA_VERSION) return;
  if (version === null && mustExist) throw new QhooksError("log", `the database ${where} holds no qhooks log yet (qhooks run, record or ship creates it)`);
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS qhooks_schema (version integer PRIMARY KEY, what text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const { rows } = await client.query<{ v: number | null }>("SELECT max(version) AS v FROM qhooks_schema");
    const current = rows[0]?.v ?? 0;
    for (const step of PG_MIGRATIONS) {
      if (step.version <= current) continue;
      await client.query(step.sql);
      await client.query("INSERT INTO qhooks_schema (version, what) VALUES ($1, $2)", [step.version, step.what]);
    }
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  }
}
