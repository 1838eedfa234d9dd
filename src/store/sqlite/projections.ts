import type { Database } from "better-sqlite3";

/**
 * The read model: what the audit queries need, derived from the journal and brought up to date in batches (by the
 * projector thread of a long-lived log, by a reader before it queries, by a short-lived writer now and then), never
 * one index page per commit on the dispatch path. `proj_state.through` is the last journal record applied; a
 * crash between an append and a batch loses nothing, the next batch starts from there. Dropping these tables and
 * setting `through` to 0 rebuilds them from the journal.
 */
export const PROJECTION_TABLES = `
  CREATE TABLE proj_state (id INTEGER PRIMARY KEY CHECK (id = 1), through INTEGER NOT NULL);
  INSERT INTO proj_state (id, through) VALUES (1, 0);

  -- One row per event, live or replayed.
  CREATE TABLE proj_events (
    seq         INTEGER PRIMARY KEY,  -- the event's record
    ts          TEXT NOT NULL,        -- its arrival
    event       TEXT,
    session_id  TEXT,
    match_value TEXT,
    run_id      TEXT,                 -- its replay run; NULL for live history
    decision    TEXT,                 -- the outcome's, or recorded | rejected; NULL while unfinished
    blocked     INTEGER NOT NULL,
    outcome_seq INTEGER               -- the record that holds its outcome (its own when judged in one step)
  );
  -- Written to match the WHERE clauses of the audit queries (queryEvents.ts), so that SQLite can use them.
  CREATE INDEX proj_events_event    ON proj_events (event, seq)       WHERE run_id IS NULL;
  CREATE INDEX proj_events_session  ON proj_events (session_id, seq)  WHERE run_id IS NULL;
  CREATE INDEX proj_events_match    ON proj_events (match_value, seq) WHERE run_id IS NULL;
  CREATE INDEX proj_events_decision ON proj_events (decision, seq)    WHERE run_id IS NULL;
  CREATE INDEX proj_events_blocked  ON proj_events (seq)              WHERE run_id IS NULL AND blocked = 1;
  CREATE INDEX proj_events_replay   ON proj_events (run_id, seq)      WHERE run_id IS NOT NULL;

  -- Live events by event and decision (unfinished while no outcome came): what qhooks stats counts without a time
  -- window, kept per batch instead of one index entry per event.
  CREATE TABLE proj_counts (
    event    TEXT NOT NULL,              -- '?' for a rejected payload that named no known event
    decision TEXT NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (event, decision)
  ) WITHOUT ROWID;

  -- One row per live session: what qhooks sessions lists without a time window.
  CREATE TABLE proj_sessions (
    session_id TEXT PRIMARY KEY,
    first_seq  INTEGER NOT NULL,
    last_seq   INTEGER NOT NULL,
    events     INTEGER NOT NULL,
    blocked    INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- One row per hook run, from the outcome's hooks (output left in the journal).
  CREATE TABLE proj_hooks (
    event_seq   INTEGER NOT NULL,
    idx         INTEGER NOT NULL,     -- its place in the outcome's hooks
    live        INTEGER NOT NULL,
    name        TEXT NOT NULL,
    command     TEXT,
    status      TEXT NOT NULL,        -- success | block | error | invalid-output | timeout
    duration_ms REAL NOT NULL,
    PRIMARY KEY (event_seq, idx)
  ) WITHOUT ROWID;
  -- (migration 7 adds level TEXT: the run's settings level, user, project, plugin or a --settings file's path)
  CREATE INDEX proj_hooks_names ON proj_hooks (name, duration_ms, status) WHERE live = 1;
`;

export interface CatchUpStep {
  /** Journal records applied by this step (0 when the projections were up to date). */
  readonly applied: number;
  /** Records still to apply after it. */
  readonly behind: number;
}

/**
 * Applies at most `maxRecords` journal records to the projections, in one IMMEDIATE transaction (so that concurrent
 * catch-ups, from any process, apply each record once). Also runs in the projector thread from its source text
 * (projectorThread.ts), so it refers to nothing outside itself.
 *
 * Its statements are prepared once per connection and kept on the connection, under a registered symbol (so that
 * the thread's copy of this function finds them too): better-sqlite3 frees a statement only when it is collected,
 * and V8 does not count the native memory behind one, so preparing ten per step let the thread's memory grow with
 * the events it applied (issue 24).
 */
export function catchUpStep(db: Database, maxRecords: number): CatchUpStep {
  const key = Symbol.for("qhooks.catchUpStep");
  const conn = db as Database & { [key]?: (max: number) => CatchUpStep };
  conn[key] ??= prepareCatchUp();
  return conn[key](maxRecords);

  function prepareCatchUp(): (max: number) => CatchUpStep {
    const through = db.prepare("SELECT through FROM proj_state WHERE id = 1");
    const head = db.prepare("SELECT coalesce(max(seq), 0) AS head FROM journal");
    const events = db.prepare(
      `INSERT OR IGNORE INTO proj_events (seq, ts, event, session_id, match_value, run_id, decision, blocked, outcome_seq)
           SELECT seq, ts, event, session_id, match_value, run_id, decision, coalesce(blocked, 0), CASE WHEN outcome IS NOT NULL THEN seq END
           FROM journal WHERE seq > @from AND seq <= @to AND kind = 'event'`,
    );
    const counts = db.prepare(
      `INSERT INTO proj_counts (event, decision, n)
           SELECT coalesce(event, '?'), coalesce(decision, 'unfinished'), count(*) FROM journal
           WHERE seq > @from AND seq <= @to AND kind = 'event' AND run_id IS NULL GROUP BY 1, 2
           ON CONFLICT (event, decision) DO UPDATE SET n = n + excluded.n`,
    );
    const sessions = db.prepare(
      `INSERT INTO proj_sessions (session_id, first_seq, last_seq, events, blocked)
           SELECT session_id, min(seq), max(seq), count(*), sum(coalesce(blocked, 0)) FROM journal
           WHERE seq > @from AND seq <= @to AND kind = 'event' AND run_id IS NULL AND session_id IS NOT NULL GROUP BY session_id
           ON CONFLICT (session_id) DO UPDATE SET first_seq = min(first_seq, excluded.first_seq), last_seq = max(last_seq, excluded.last_seq),
             events = events + excluded.events, blocked = blocked + excluded.blocked`,
    );
    const outcomeBlocked = db.prepare(
      `UPDATE proj_sessions SET blocked = blocked + b.n
           FROM (SELECT v.session_id, count(*) AS n FROM journal o JOIN proj_events v ON v.seq = o.ref
                 WHERE o.seq > @from AND o.seq <= @to AND o.kind = 'outcome' AND o.blocked = 1 AND v.outcome_seq IS NULL
                   AND v.run_id IS NULL AND v.session_id IS NOT NULL GROUP BY v.session_id) b
           WHERE proj_sessions.session_id = b.session_id`,
    );
    const outcomeCounts = db.prepare(
      `INSERT INTO proj_counts (event, decision, n)
             SELECT coalesce(v.event, '?'), coalesce(o.decision, 'unfinished'), count(*) FROM journal o JOIN proj_events v ON v.seq = o.ref
             WHERE o.seq > @from AND o.seq <= @to AND o.kind = 'outcome' AND v.outcome_seq IS NULL AND v.run_id IS NULL GROUP BY 1, 2
             ON CONFLICT (event, decision) DO UPDATE SET n = n + excluded.n`,
    );
    const unfinishedCounts = db.prepare(
      `INSERT INTO proj_counts (event, decision, n)
             SELECT coalesce(v.event, '?'), coalesce('unfinished', 'unfinished'), -count(*) FROM journal o JOIN proj_events v ON v.seq = o.ref
             WHERE o.seq > @from AND o.seq <= @to AND o.kind = 'outcome' AND v.outcome_seq IS NULL AND v.run_id IS NULL GROUP BY 1, 2
             ON CONFLICT (event, decision) DO UPDATE SET n = n + excluded.n`,
    );
    const outcomes = db.prepare(
      `UPDATE proj_events SET decision = o.decision, blocked = coalesce(o.blocked, 0), outcome_seq = o.seq
           FROM journal o
           WHERE o.seq > @from AND o.seq <= @to AND o.kind = 'outcome' AND proj_events.seq = o.ref AND proj_events.outcome_seq IS NULL`,
    );
    const hooks = db.prepare(
      `INSERT OR IGNORE INTO proj_hooks (event_seq, idx, live, name, command, status, duration_ms, level)
           SELECT r.event_seq, h.key, r.live, coalesce(h.value ->> 'name', '?'), h.value ->> 'command',
                  coalesce(h.value ->> 'outcome', '?'), coalesce(h.value ->> 'durationMs', 0), h.value ->> 'level'
           FROM (SELECT j.event_seq, v.run_id IS NULL AS live, j.json
                 FROM (SELECT CASE WHEN kind = 'outcome' THEN ref ELSE seq END AS event_seq,
                              CASE WHEN kind = 'outcome' THEN body ELSE outcome END AS json
                       FROM journal WHERE seq > @from AND seq <= @to AND (kind = 'outcome' OR outcome IS NOT NULL)) j
                 JOIN proj_events v ON v.seq = j.event_seq) r,
                json_each(CASE WHEN json_valid(r.json) THEN r.json ELSE '{}' END, '$.hooks') h`,
    );
    const done = db.prepare("UPDATE proj_state SET through = ? WHERE id = 1");
    const run = db.transaction((max: number): CatchUpStep => {
      const from = (through.get() as { through: number }).through;
      const top = (head.get() as { head: number }).head;
      const to = Math.min(top, from + max);
      if (to <= from) return { applied: 0, behind: 0 };
      const range = { from, to };
      // Events: one-step ones (format 4) carry their outcome's decision; an arrival waits for its outcome record.
      events.run(range);
      counts.run(range);
      sessions.run(range);
      // Outcomes recorded apart from their event (hooks ran): the event is counted as judged instead of unfinished,
      // and as blocked in its session when it was, then takes its outcome. The first one wins.
      outcomeBlocked.run(range);
      outcomeCounts.run(range);
      unfinishedCounts.run(range);
      outcomes.run(range);
      // Hook runs, from the outcome JSON of either kind of record (format 3's hook records say the same, in less
      // detail). A damaged JSON body is skipped here; reading that record says what is wrong with it.
      hooks.run(range);
      done.run(to);
      return { applied: to - from, behind: top - to };
    });
    return (max) => run.immediate(max);
  }
}

/** How many journal records the projections have not applied yet (a read: no lock taken). */
export function projectionLag(db: Database): number {
  const row = db.prepare("SELECT (SELECT coalesce(max(seq), 0) FROM journal) - through AS lag FROM proj_state WHERE id = 1").get() as { lag: number };
  return row.lag;
}
