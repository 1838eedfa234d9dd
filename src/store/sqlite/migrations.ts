import { randomUUID } from "node:crypto";
import type { Database } from "better-sqlite3";
import { QhooksError } from "../../errors.js";
import { PROJECTION_TABLES } from "./projections.js";

/**
 * Schema steps, applied in order, each in one transaction with the `user_version` that marks it done. Shipped
 * steps are never edited, only appended to; a step never rewrites the hashed columns of existing records.
 */
export const MIGRATIONS: ReadonlyArray<{ readonly version: number; readonly what: string; readonly up: (db: Database) => void }> = [
  {
    version: 1,
    what: "the journal: one append-only, hash-chained table of every event, outcome, hook run and config snapshot",
    up: (db) =>
      db.exec(`
        CREATE TABLE journal (
          seq         INTEGER PRIMARY KEY,  -- position in the log, contiguous from 1
          ts          TEXT    NOT NULL,     -- ISO 8601, UTC
          kind        TEXT    NOT NULL,     -- event | outcome | hook | snapshot | replay_run
          event       TEXT,
          session_id  TEXT,
          match_value TEXT,
          project_dir TEXT,
          source      TEXT,                 -- dispatch | record | replay
          ref         INTEGER,              -- outcome, hook: the event's seq; replayed event: the live event's seq
          run_id      TEXT,                 -- replay run; NULL for live history
          config_hash TEXT,
          name        TEXT,                 -- hook: its name
          status      TEXT,                 -- hook: success | block | error | invalid-output | timeout
          decision    TEXT,                 -- outcome, hook: the decision; event: recorded | rejected | NULL
          blocked     INTEGER,
          duration_ms REAL,
          reason      TEXT,                 -- outcome: the reason; event: why it was rejected
          body        TEXT    NOT NULL,     -- event: the payload; outcome: the outcome JSON; ...
          hash        TEXT    NOT NULL      -- sha256 over the previous record's hash and every column above
        );
      `),
  },
  {
    version: 2,
    what: "indexes for the audit queries (log filters, sessions, stats, the Stop-loop guard, replay runs)",
    up: (db) =>
      db.exec(`
        CREATE INDEX journal_live_event   ON journal (event, seq)       WHERE kind = 'event' AND run_id IS NULL;
        CREATE INDEX journal_live_session ON journal (session_id, seq)  WHERE kind = 'event' AND run_id IS NULL;
        CREATE INDEX journal_live_match   ON journal (match_value, seq) WHERE kind = 'event' AND run_id IS NULL;
        CREATE INDEX journal_live_events  ON journal (seq)              WHERE kind = 'event' AND run_id IS NULL;
        CREATE INDEX journal_replay       ON journal (run_id, seq)      WHERE kind = 'event' AND run_id IS NOT NULL;
        CREATE UNIQUE INDEX journal_outcome_of ON journal (ref)         WHERE kind = 'outcome';
        CREATE INDEX journal_outcome_decision ON journal (decision, ref) WHERE kind = 'outcome';
        CREATE INDEX journal_stop_streak  ON journal (session_id, event, seq) WHERE kind = 'outcome' AND run_id IS NULL;
        CREATE INDEX journal_hooks_of     ON journal (ref)              WHERE kind = 'hook';
        CREATE INDEX journal_hook_names   ON journal (name, duration_ms, status) WHERE kind = 'hook' AND run_id IS NULL;
        CREATE INDEX journal_snapshots    ON journal (config_hash)      WHERE kind = 'snapshot';
        CREATE INDEX journal_replay_runs  ON journal (run_id)           WHERE kind = 'replay_run';
      `),
  },
  {
    version: 3,
    what: "fewer index pages per append (the unfiltered listing walks the table itself; the Stop-loop index holds Stop outcomes only); small indexes for log --blocked and for the counts of qhooks stats",
    // Every index is a page rewritten at every commit; these two cost a third of an append and bought nothing the
    // table's own order (seq) or a smaller partial index does not give.
    up: (db) =>
      db.exec(`
        DROP INDEX journal_live_events;
        DROP INDEX journal_stop_streak;
        CREATE INDEX journal_stop_streak ON journal (session_id, seq) WHERE kind = 'outcome' AND run_id IS NULL AND event = 'Stop';
        CREATE INDEX journal_blocked ON journal (ref) WHERE kind = 'outcome' AND blocked = 1;
        CREATE INDEX journal_outcome_counts ON journal (event, decision) WHERE kind = 'outcome' AND run_id IS NULL;
        CREATE INDEX journal_event_marks ON journal (event, decision) WHERE kind = 'event' AND run_id IS NULL AND decision IS NOT NULL;
      `),
  },
  {
    version: 4,
    what: "an event-sourced log: the journal alone is written on the dispatch path (hash format 4, chained with the log's id); the audit indexes become projections brought up to date in batches",
    // Every index on the journal was a 4 KB page rewritten at every commit: 6 index entries and 8.7 WAL pages for an
    // event no hook matched, against 1.7 pages for a bare insert. The journal keeps two partial indexes that only
    // rare records enter (snapshots, replay runs); what the audits need is kept in projections (projections.ts).
    // Existing records keep their columns, their hashes and their format (3); new ones are written in format 4.
    up: (db) => {
      db.exec(`
        ALTER TABLE journal ADD COLUMN format INTEGER NOT NULL DEFAULT 3;  -- the record's hash format
        ALTER TABLE journal ADD COLUMN outcome TEXT;                       -- event judged in one step: its outcome JSON
        CREATE TABLE log_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      `);
      // The log's stable id: chained into every format-4 record, and the name of its chain wherever it is shipped.
      db.prepare("INSERT INTO log_meta (key, value) VALUES ('log_id', ?)").run(randomUUID());
      db.exec(`
        -- The Stop-loop guard's input, kept in the same transaction as each live Stop outcome (a blocked one adds
        -- one, any other removes the session's row): read on the dispatch path, so it never lags. Built here from
        -- the outcomes already in the log.
        CREATE TABLE stop_streaks (session_id TEXT PRIMARY KEY, streak INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO stop_streaks (session_id, streak)
          SELECT s.session_id, count(*) FROM journal s
          WHERE s.kind = 'outcome' AND s.run_id IS NULL AND s.event = 'Stop' AND s.blocked = 1
            AND s.seq > coalesce((SELECT max(o.seq) FROM journal o WHERE o.kind = 'outcome' AND o.run_id IS NULL
                                  AND o.event = 'Stop' AND o.session_id = s.session_id AND o.blocked IS NOT 1), 0)
          GROUP BY s.session_id;

        DROP INDEX journal_live_event;
        DROP INDEX journal_live_session;
        DROP INDEX journal_live_match;
        DROP INDEX journal_replay;
        DROP INDEX journal_outcome_of;
        DROP INDEX journal_outcome_decision;
        DROP INDEX journal_stop_streak;
        DROP INDEX journal_hooks_of;
        DROP INDEX journal_hook_names;
        DROP INDEX journal_blocked;
        DROP INDEX journal_outcome_counts;
        DROP INDEX journal_event_marks;
      `);
      db.exec(PROJECTION_TABLES);
    },
  },
  {
    version: 5,
    what: "an index of async hooks' results by the event they name, so that listing events finds them without a scan",
    // Partial: only async hooks' records (rare) have entries, so other appends touch no page of it.
    up: (db) => db.exec("CREATE INDEX journal_async_hooks ON journal (ref, seq) WHERE kind = 'hook'"),
  },
  {
    version: 6,
    what: "who and where: each record's machine, OS user and judging host (hash format 5 covers them)",
    // Existing records keep NULL and their format; new ones are written in format 5. The log's id (log_meta) and
    // a record's seq are its writer and its number in its origin log.
    up: (db) =>
      db.exec(`
        ALTER TABLE journal ADD COLUMN machine TEXT;    -- the host name of the machine that wrote it
        ALTER TABLE journal ADD COLUMN os_user TEXT;    -- the OS user that wrote it
        ALTER TABLE journal ADD COLUMN judged_by TEXT;  -- an event judged by settings: their host (dialect)
      `),
  },
  {
    version: 7,
    what: "each projected hook run's settings level, so that a user's and a project's hook of one name are counted apart",
    // The level is in every outcome's JSON; the runs projected before this step take it from there (each outcome
    // parsed once). A damaged body is skipped, as the projector skips it: its runs keep a NULL level.
    up: (db) =>
      db.exec(`
        ALTER TABLE proj_hooks ADD COLUMN level TEXT;
        UPDATE proj_hooks SET level = x.level
          FROM (SELECT v.seq AS event_seq, h.key AS idx, h.value ->> 'level' AS level
                FROM proj_events v JOIN journal j ON j.seq = v.outcome_seq,
                     json_each(CASE WHEN json_valid(CASE WHEN j.kind = 'outcome' THEN j.body ELSE j.outcome END)
                                    THEN CASE WHEN j.kind = 'outcome' THEN j.body ELSE j.outcome END ELSE '{}' END, '$.hooks') h) x
          WHERE proj_hooks.event_seq = x.event_seq AND proj_hooks.idx = x.idx;
      `),
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Brings the file up to `target` (the latest by default). Safe when several processes open a new file at once. */
export function migrate(db: Database, target: number = SCHEMA_VERSION): void {
  const current = () => db.pragma("user_version", { simple: true }) as number;
  if (current() > SCHEMA_VERSION) {
    throw new QhooksError("log", `the event log has schema version ${current()}, newer than this qhooks knows (${SCHEMA_VERSION}); upgrade qhooks`);
  }
  if (current() >= target) return;
  // IMMEDIATE: take the write lock before reading the version, so two processes cannot both run a step.
  db.transaction(() => {
    if (current() === 0) refuseForeignDatabase(db);
    for (const step of MIGRATIONS) {
      if (step.version > target || step.version <= current()) continue;
      step.up(db);
      db.pragma(`user_version = ${step.version}`);
    }
  }).immediate();
}

/**
 * A file at version 0 that already holds tables is some other program's SQLite database (a path typed wrong, a
 * `--db` pointed at an app's data): qhooks never writes its tables into it. A new qhooks log is empty at version 0.
 */
function refuseForeignDatabase(db: Database): void {
  const owned = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'").get() as { n: number };
  if (owned.n > 0) {
    throw new QhooksError("log", `${db.name} is an SQLite database that qhooks did not create; point --db or QHOOKS_DB at a qhooks log or a new file`);
  }
}
