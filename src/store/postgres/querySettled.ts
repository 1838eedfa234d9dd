import type { LogFilter, SettledPage } from "../eventLog.js";
import { toLogRecord, type EventListRow } from "../journal/eventRows.js";
import { EVENT_JOIN, eventWhere, Params, textOf } from "./filterSql.js";
import type { Query } from "./query.js";

const TEXT_COLUMNS = ["session_id", "match_value", "project_dir", "run_id", "config_hash", "machine", "os_user", "e_reason", "payload", "outcome"];

/**
 * Matching events settled after record `after`, in the order they settled. The head is read first, and only records
 * up to it are given: what commits meanwhile is for the next call.
 */
export async function querySettled(query: Query, filter: LogFilter, after: number, limit: number): Promise<SettledPage> {
  const [top] = await query<{ head: string | number | null }>("SELECT max(gid) AS head FROM qhooks_journal");
  const head = Number(top?.head ?? 0);
  const p = new Params();
  const where = eventWhere(filter, p);
  const mark = "coalesce(v.outcome_gid, v.gid)";
  const rows = await query<Record<string, unknown>>(
    `SELECT v.gid AS seq, e.ts, e.event, e.session_id, e.match_value, e.project_dir, e.source, e.ref_gid AS ref, e.run_id, e.config_hash,
            e.machine, e.os_user, e.judged_by, e.writer_id, e.seq AS origin_seq,
            v.decision AS e_decision, e.reason AS e_reason, e.body AS payload,
            CASE WHEN v.outcome_gid = v.gid THEN e.outcome ELSE o.body END AS outcome,
            (SELECT array_agg(h.body ORDER BY h.gid) FROM qhooks_journal h WHERE h.kind = 'hook' AND h.ref_gid = v.gid AND h.format >= 4) AS async_bodies,
            ${mark} AS mark
     FROM ${EVENT_JOIN} WHERE ${where} AND v.decision IS NOT NULL AND ${mark} > ${p.add(after)} AND ${mark} <= ${p.add(head)}
     ORDER BY ${mark} LIMIT ${p.add(limit)}`,
    p.values,
  );
  const records = rows.map((r) => {
    for (const column of TEXT_COLUMNS) r[column] = textOf(r[column] as Buffer | null);
    const bodies = r.async_bodies as Buffer[] | null;
    r.async_hooks = bodies === null ? null : `[${bodies.map((b) => b.toString("utf8")).join(",")}]`;
    return toLogRecord(r as unknown as EventListRow);
  });
  const cut = rows.length >= limit && rows.length > 0;
  return { records, through: cut ? Number(rows[rows.length - 1]!.mark) : head };
}
