import type { Database } from "better-sqlite3";
import type { LogDecision, SessionRow, Stats } from "../../schema/logRecord.js";
import type { LogFilter } from "../eventLog.js";

type Window = Pick<LogFilter, "since" | "until">;

function timeTerms(filter: Window): { sql: string; params: Record<string, string> } {
  const terms: string[] = [];
  const params: Record<string, string> = {};
  if (filter.since) {
    terms.push("ts >= @since");
    params.since = filter.since.toISOString();
  }
  if (filter.until) {
    terms.push("ts < @until");
    params.until = filter.until.toISOString();
  }
  return { sql: terms.map((t) => ` AND ${t}`).join(""), params };
}

/** One row per live session, most recently active first. */
export function querySessions(db: Database, filter: Window): SessionRow[] {
  const time = timeTerms(filter);
  const groups = db
    .prepare(
      `SELECT session_id AS id, min(seq) AS first, max(seq) AS last, count(*) AS events FROM journal
       WHERE kind = 'event' AND run_id IS NULL AND session_id IS NOT NULL${time.sql} GROUP BY session_id`,
    )
    .all(time.params) as { id: string; first: number; last: number; events: number }[];
  const blocked = new Map(
    (
      db
        .prepare(
          `SELECT session_id AS id, count(*) AS n FROM journal
           WHERE kind = 'outcome' AND run_id IS NULL AND blocked = 1${time.sql} GROUP BY session_id`,
        )
        .all(time.params) as { id: string; n: number }[]
    ).map((r) => [r.id, r.n]),
  );
  const at = db.prepare("SELECT ts, project_dir FROM journal WHERE seq = ?");
  return groups
    .map((g) => {
      const first = at.get(g.first) as { ts: string; project_dir: string };
      const last = at.get(g.last) as { ts: string };
      return { sessionId: g.id, projectDir: first.project_dir, firstTs: first.ts, lastTs: last.ts, events: g.events, blocked: blocked.get(g.id) ?? 0 };
    })
    .sort((a, b) => (a.lastTs < b.lastTs ? 1 : a.lastTs > b.lastTs ? -1 : 0));
}

/** Counts by event and decision over live history; per hook: runs, outcomes and p50/p95 duration. */
export function queryStats(db: Database, filter: Window): Stats {
  const time = timeTerms(filter);
  const counts = new Map<string, number>();
  const add = (event: string, decision: LogDecision, n: number) => counts.set(`${event}\0${decision}`, (counts.get(`${event}\0${decision}`) ?? 0) + n);

  // Without a time window every count below is read from a covering index, never from the table's rows.
  let events = 0;
  const dispatched = new Map<string, number>();
  for (const r of db
    .prepare(`SELECT coalesce(event, '?') AS event, count(*) AS n FROM journal WHERE kind = 'event' AND run_id IS NULL${time.sql} GROUP BY event`)
    .iterate(time.params) as IterableIterator<{ event: string; n: number }>) {
    events += r.n;
    dispatched.set(r.event, r.n);
  }
  // Recorded and rejected events are judged by nobody: their decision is on the event itself.
  for (const r of db
    .prepare(
      `SELECT coalesce(event, '?') AS event, decision, count(*) AS n FROM journal
       WHERE kind = 'event' AND run_id IS NULL AND decision IS NOT NULL${time.sql} GROUP BY event, decision`,
    )
    .iterate(time.params) as IterableIterator<{ event: string; decision: LogDecision; n: number }>) {
    add(r.event, r.decision, r.n);
    dispatched.set(r.event, (dispatched.get(r.event) ?? 0) - r.n);
  }
  const judged = new Map<string, number>();
  const outcomes = time.sql
    ? // A window selects events by their arrival; their outcomes follow them, whenever they came.
      `SELECT o.event, o.decision, count(*) AS n FROM journal o JOIN journal e ON e.seq = o.ref
       WHERE o.kind = 'outcome' AND o.run_id IS NULL${time.sql.replaceAll("ts", "e.ts")} GROUP BY o.event, o.decision`
    : `SELECT event, decision, count(*) AS n FROM journal WHERE kind = 'outcome' AND run_id IS NULL GROUP BY event, decision`;
  for (const r of db.prepare(outcomes).iterate(time.params) as IterableIterator<{ event: string; decision: LogDecision; n: number }>) {
    add(r.event, r.decision, r.n);
    judged.set(r.event, (judged.get(r.event) ?? 0) + r.n);
  }
  for (const [event, n] of dispatched) {
    const unfinished = n - (judged.get(event) ?? 0);
    if (unfinished > 0) add(event, "unfinished", unfinished);
  }
  const byEvent = [...counts]
    .map(([key, count]) => {
      const [event, decision] = key.split("\0") as [string, LogDecision];
      return { event, decision, count };
    })
    .sort((a, b) => a.event.localeCompare(b.event) || b.count - a.count);

  // Ordered by name, then duration: each hook's durations arrive sorted, ready for percentiles.
  const perHook = new Map<string, { durations: number[]; blocks: number; errors: number; invalidOutputs: number; timeouts: number }>();
  for (const r of db
    .prepare(
      `SELECT h.name, h.status, h.duration_ms AS ms FROM journal h
       WHERE h.kind = 'hook' AND h.run_id IS NULL${time.sql.replaceAll("ts", "h.ts")} ORDER BY h.name, h.duration_ms`,
    )
    .iterate(time.params) as IterableIterator<{ name: string; status: string; ms: number }>) {
    let acc = perHook.get(r.name);
    if (!acc) perHook.set(r.name, (acc = { durations: [], blocks: 0, errors: 0, invalidOutputs: 0, timeouts: 0 }));
    acc.durations.push(r.ms);
    if (r.status === "block") acc.blocks++;
    else if (r.status === "error") acc.errors++;
    else if (r.status === "invalid-output") acc.invalidOutputs++;
    else if (r.status === "timeout") acc.timeouts++;
  }
  const hooks: Stats["hooks"] = [...perHook].map(([name, { durations: d, ...counts }]) => {
    // Nearest-rank percentiles.
    const pct = (p: number) => (d.length ? d[Math.min(d.length - 1, Math.ceil((p / 100) * d.length) - 1)]! : null);
    return { name, runs: d.length, ...counts, p50Ms: pct(50), p95Ms: pct(95) };
  });
  return { events, byEvent, hooks };
}
