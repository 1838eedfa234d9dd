import type { Database } from "better-sqlite3";
import type { LogFilter, SettledPage } from "../eventLog.js";
import { toLogRecord, type EventListRow } from "../journal/eventRows.js";
import { EVENT_JOIN, eventWhere, OUTCOME_JSON } from "./filterSql.js";

const COLUMNS = `v.seq, e.ts, e.event, e.session_id, e.match_value, e.project_dir, e.source, e.ref, e.run_id,
  e.config_hash, e.machine, e.os_user, e.judged_by, e.seq AS origin_seq,
  (SELECT value FROM log_meta WHERE key = 'log_id') AS writer_id, v.decision AS e_decision, e.reason AS e_reason, e.body AS payload, ${OUTCOME_JSON} AS outcome,
  (SELECT json_group_array(json(h.body)) FROM journal h WHERE h.kind = 'hook' AND h.ref = v.seq AND h.format >= 4) AS async_hooks,
  coalesce(v.outcome_seq, v.seq) AS mark`;

/**
 * Matching events settled after record `after`, in the order they settled (projections already up to date). The
 * candidates are found by index: events appended after it, and the events of outcomes appended after it. One read
 * transaction, so that `through` (the last record projected) and the rows agree.
 */
export function querySettled(db: Database, filter: LogFilter, after: number, limit: number): SettledPage {
  const { where, params } = eventWhere(filter);
  return db.transaction((): SettledPage => {
    const head = (db.prepare("SELECT through FROM proj_state WHERE id = 1").get() as { through: number }).through;
    const rows = db
      .prepare(
        `SELECT ${COLUMNS} FROM ${EVENT_JOIN}
         WHERE ${where} AND v.decision IS NOT NULL
           AND v.seq IN (SELECT seq FROM proj_events WHERE seq > @after UNION SELECT ref FROM journal WHERE seq > @after AND kind = 'outcome')
           AND coalesce(v.outcome_seq, v.seq) > @after AND coalesce(v.outcome_seq, v.seq) <= @head
         ORDER BY mark LIMIT @limit`,
      )
      .all(...params, { after, head, limit }) as (EventListRow & { mark: number })[];
    const cut = rows.length >= limit && rows.length > 0;
    return { records: rows.map(toLogRecord), through: cut ? rows[rows.length - 1]!.mark : head };
  })();
}
