import type { MatchCount, SessionRow, Stats } from "../../schema/logRecord.js";
import type { Window } from "../journal/filterTerms.js";
import { compareText, Params, textOf, windowSql } from "./filterSql.js";
import { byHookNameThenLevel } from "../journal/hookStatsOrder.js";
import type { Query } from "./query.js";

/** The summaries of the log (sessions, stats, match counts), as SQLite's querySummaries.ts gives them. */

export async function querySessions(query: Query, filter: Window): Promise<SessionRow[]> {
  const p = new Params();
  const time = windowSql(filter, p);
  const rows = await query<{
    id: Buffer;
    first_ts: string;
    last_ts: string;
    project_dir: Buffer | null;
    events: number;
    blocked: number;
    machine: Buffer | null;
    os_user: Buffer | null;
    writer_id: string | null;
    judged_by: string | null;
  }>(
    `WITH g AS (SELECT session_id, min(gid) AS first, max(gid) AS last, count(*) AS events, sum(blocked) AS blocked FROM qhooks_events
                WHERE run_id IS NULL AND session_id IS NOT NULL${time} GROUP BY session_id)
     SELECT g.session_id AS id, f.ts AS first_ts, f.project_dir, l.ts AS last_ts, g.events, g.blocked,
            j.machine, j.os_user, j.writer_id, j.judged_by
     FROM g JOIN qhooks_events f ON f.gid = g.first JOIN qhooks_events l ON l.gid = g.last JOIN qhooks_journal j ON j.gid = g.first
     ORDER BY g.session_id`,
    p.values,
  );
  return rows
    .map((r) => ({
      sessionId: r.id.toString("utf8"),
      projectDir: textOf(r.project_dir) ?? "",
      firstTs: r.first_ts,
      lastTs: r.last_ts,
      events: r.events,
      blocked: r.blocked,
      origin: { machine: textOf(r.machine), user: textOf(r.os_user), writer: r.writer_id, host: r.judged_by },
    }))
    .sort((a, b) => (a.lastTs < b.lastTs ? 1 : a.lastTs > b.lastTs ? -1 : 0));
}

export async function queryStats(query: Query, filter: Window, names?: ReadonlyMap<string, string>): Promise<Stats> {
  const p = new Params();
  const time = windowSql(filter, p);
  const counts = await query<{ event: string; decision: Stats["byEvent"][number]["decision"]; n: number }>(
    `SELECT coalesce(event, '?') AS event, coalesce(decision, 'unfinished') AS decision, count(*) AS n FROM qhooks_events
     WHERE run_id IS NULL${time} GROUP BY 1, 2 ORDER BY 1, 2`,
    p.values,
  );
  let events = 0;
  const byEvent: Stats["byEvent"] = counts.map((r) => {
    events += r.n;
    return { event: r.event, decision: r.decision, count: r.n };
  });
  byEvent.sort((a, b) => a.event.localeCompare(b.event) || b.count - a.count);
  const q = new Params();
  const hookWindow = windowSql(filter, q, "v.ts", "v.gid");
  const windowed = hookWindow !== "";
  // Runs stored under another name count under the one `names` gives (names are bytes here, as stored).
  const renamed = names !== undefined && names.size > 0;
  const mapJoin = renamed
    ? ` LEFT JOIN unnest(${q.add([...names.keys()].map((n) => Buffer.from(n, "utf8")))}::bytea[], ${q.add([...names.values()].map((n) => Buffer.from(n, "utf8")))}::bytea[]) AS m(old, new) ON m.old = h.name`
    : "";
  const name = renamed ? "coalesce(m.new, h.name)" : "h.name";
  // Nearest-rank percentiles, as percentile_disc takes them, in one sort per hook. A hook's last run is the time
  // of the newest event (by seq, as in SQLite) it ran for: its gid is in the covering index, and only those
  // events are read (without a window, no event row is joined at all).
  const hooks = await query<{
    name: Buffer;
    level: Buffer | null;
    runs: number;
    blocks: number;
    errors: number;
    invalid: number;
    timeouts: number;
    p: (number | null)[] | null;
    max: number | null;
    last_gid: number | null;
  }>(
    `SELECT ${name} AS name, h.level, count(*) AS runs, count(*) FILTER (WHERE h.status = 'block') AS blocks, count(*) FILTER (WHERE h.status = 'error') AS errors,
            count(*) FILTER (WHERE h.status = 'invalid-output') AS invalid, count(*) FILTER (WHERE h.status = 'timeout') AS timeouts,
            percentile_disc(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY h.duration_ms) AS p, max(h.duration_ms) AS max,
            max(h.event_gid) AS last_gid
     FROM qhooks_hooks h${windowed ? " JOIN qhooks_events v ON v.gid = h.event_gid" : ""}${mapJoin} WHERE h.live${hookWindow} GROUP BY 1, 2`,
    q.values,
  );
  const lastTs = new Map<number, string>();
  const lastGids = hooks.map((h) => h.last_gid).filter((g): g is number => g !== null);
  if (lastGids.length > 0) {
    for (const r of await query<{ gid: number; ts: string }>("SELECT gid, ts FROM qhooks_events WHERE gid = ANY($1::bigint[])", [lastGids]))
      lastTs.set(Number(r.gid), r.ts);
  }
  return {
    events,
    byEvent,
    hooks: hooks
      .map((h) => ({
        name: h.name.toString("utf8"),
        level: h.level === null ? null : h.level.toString("utf8"),
        runs: h.runs,
        blocks: h.blocks,
        errors: h.errors,
        invalidOutputs: h.invalid,
        timeouts: h.timeouts,
        p50Ms: h.p?.[0] ?? null,
        p95Ms: h.p?.[1] ?? null,
        p99Ms: h.p?.[2] ?? null,
        maxMs: h.max,
        lastTs: h.last_gid === null ? null : (lastTs.get(Number(h.last_gid)) ?? null),
      }))
      .sort(byHookNameThenLevel),
  };
}

export async function queryMatchCounts(query: Query, filter: Window): Promise<MatchCount[]> {
  const p = new Params();
  const time = windowSql(filter, p);
  const rows = await query<{ event: string; match_value: Buffer | null; n: number }>(
    `SELECT event, match_value, count(*) AS n FROM qhooks_events
     WHERE run_id IS NULL AND event IS NOT NULL${time} GROUP BY event, match_value`,
    p.values,
  );
  return rows
    .map((r) => ({ event: r.event, matchValue: textOf(r.match_value), count: r.n }))
    .sort((a, b) => (a.event < b.event ? -1 : a.event > b.event ? 1 : b.count - a.count || compareText(a.matchValue, b.matchValue)));
}
