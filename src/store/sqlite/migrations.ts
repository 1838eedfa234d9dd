import type { Database } from "better-sqlite3";
import { QhooksError } from "../../errors.js";

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
    for (const step of MIGRATIONS) {
      if (step.version > target || step.version <= current()) continue;
      step.up(db);
      db.pragma(`user_version = ${step.version}`);
    }
  }).immediate();
}
