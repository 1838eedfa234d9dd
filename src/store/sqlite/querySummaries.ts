import type { Database } from "better-sqlite3";
import type { LogDecision, MatchCount, SessionRow, Stats } from "../../schema/logRecord.js";
import type { Window } from "../journal/filterTerms.js";
import { windowSql } from "./filterSql.js";
import { byHookNameThenLevel } from "../journal/hookStatsOrder.js";

/** One row per live session, most recently active first. */
export function querySessions(db: Database, filter: Window): SessionRow[] {
  const time = windowSql(filter);
  // Without a time window the sessions are kept by the projections; with one, they are counted.
  const groups = (
    time.sql
      ? db
          .prepare(
            `SELECT session_id AS id, min(seq) AS first, max(seq) AS last, count(*) AS events, sum(blocked) AS blocked FROM proj_events
             WHERE run_id IS NULL AND session_id IS NOT NULL${time.sql} GROUP BY session_id`,
          )
          .all(...time.params)
      : db.prepare("SELECT session_id AS id, first_seq AS first, last_seq AS last, events, blocked FROM proj_sessions").all()
  ) as { id: string; first: number; last: number; events: number; blocked: number }[];
  const at = db.prepare("SELECT ts, project_dir, machine, os_user, judged_by FROM journal WHERE seq = ?");
  // A file is one writer's log.
  const writer = (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").pluck().get() as string | undefined) ?? null;
  return groups
    .map((g) => {
      const first = at.get(g.first) as { ts: string; project_dir: string; machine: string | null; os_user: string | null; judged_by: string | null };
      const last = at.get(g.last) as { ts: string };
      return {
        sessionId: g.id,
        projectDir: first.project_dir,
        firstTs: first.ts,
        lastTs: last.ts,
        events: g.events,
        blocked: g.blocked,
        origin: { machine: first.machine, user: first.os_user, writer, host: first.judged_by },
      };
    })
    .sort((a, b) => (a.lastTs < b.lastTs ? 1 : a.lastTs > b.lastTs ? -1 : 0));
}

/** Counts by event and decision over live history; per hook: runs, outcomes and p50/p95 duration. */
export function queryStats(db: Database, filter: Window, names?: ReadonlyMap<string, string>): Stats {
  const time = windowSql(filter);
  // Without a time window the counts are kept by the projections; with one, they are counted.
  let events = 0;
  const byEvent: Stats["byEvent"] = [];
  const counts = time.sql
    ? `SELECT coalesce(event, '?') AS event, coalesce(decision, 'unfinished') AS decision, count(*) AS n FROM proj_events
       WHERE run_id IS NULL${time.sql} GROUP BY 1, 2`
    : "SELECT event, decision, n FROM proj_counts WHERE n > 0";
  for (const r of db.prepare(counts).iterate(...time.params) as IterableIterator<{ event: string; decision: LogDecision; n: number }>) {
    events += r.n;
    byEvent.push({ event: r.event, decision: r.decision, count: r.n });
  }
  byEvent.sort((a, b) => a.event.localeCompare(b.event) || b.count - a.count);

  // Ordered by name, then duration: each hook's durations arrive sorted, ready for percentiles (a level's share of
  // them too). A window selects hook runs by their event's arrival.
  // Each hook (its level and name) keeps its newest event by seq, and its time is read once per hook at the end.
  const perHook = new Map<
    string,
    { name: string; level: string | null; durations: number[]; blocks: number; errors: number; invalidOutputs: number; timeouts: number; lastSeq: number }
  >();
  const hookRuns = time.sql
    ? `SELECT h.name, h.level, h.status, h.duration_ms AS ms, h.event_seq AS seq FROM proj_hooks h JOIN proj_events v ON v.seq = h.event_seq
       WHERE h.live = 1${windowSql(filter, "v.ts", "v.seq").sql} ORDER BY h.name, h.duration_ms`
    : "SELECT name, level, status, duration_ms AS ms, event_seq AS seq FROM proj_hooks WHERE live = 1 ORDER BY name, duration_ms";
  for (const r of db.prepare(hookRuns).iterate(...time.params) as IterableIterator<{
    name: string;
    level: string | null;
    status: string;
    ms: number;
    seq: number;
  }>) {
    const name = names?.get(r.name) ?? r.name;
    const key = JSON.stringify([r.level, name]);
    let acc = perHook.get(key);
    if (!acc) perHook.set(key, (acc = { name, level: r.level, durations: [], blocks: 0, errors: 0, invalidOutputs: 0, timeouts: 0, lastSeq: 0 }));
    acc.durations.push(r.ms);
    if (r.seq > acc.lastSeq) acc.lastSeq = r.seq;
    if (r.status === "block") acc.blocks++;
    else if (r.status === "error") acc.errors++;
    else if (r.status === "invalid-output") acc.invalidOutputs++;
    else if (r.status === "timeout") acc.timeouts++;
  }
  const tsOf = db.prepare("SELECT ts FROM proj_events WHERE seq = ?").pluck();
  // Runs counted under another name arrive in their own order: sorted again.
  if (names !== undefined && names.size > 0) for (const acc of perHook.values()) acc.durations.sort((a, b) => a - b);
  const hooks: Stats["hooks"] = [...perHook.values()].sort(byHookNameThenLevel).map(({ name, level, durations: d, lastSeq, ...counts }) => {
    // Nearest-rank percentiles.
    const pct = (p: number) => (d.length ? d[Math.min(d.length - 1, Math.ceil((p / 100) * d.length) - 1)]! : null);
    return {
      name,
      level,
      runs: d.length,
      ...counts,
      p50Ms: pct(50),
      p95Ms: pct(95),
      p99Ms: pct(99),
      maxMs: d.length ? d[d.length - 1]! : null,
      lastTs: (tsOf.get(lastSeq) as string | undefined) ?? null,
    };
  });
  return { events, byEvent, hooks };
}

/** Live events by event and match value, most frequent first. */
export function queryMatchCounts(db: Database, filter: Window): MatchCount[] {
  const time = windowSql(filter);
  return db
    .prepare(
      `SELECT event, match_value AS matchValue, count(*) AS count FROM proj_events
       WHERE run_id IS NULL AND event IS NOT NULL${time.sql} GROUP BY event, match_value ORDER BY event, count DESC, match_value`,
    )
    .all(...time.params) as MatchCount[];
}
