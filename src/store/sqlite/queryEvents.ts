import type { Database } from "better-sqlite3";
import type { LogRecord } from "../../schema/logRecord.js";
import type { LogFilter, StoredEvent } from "../eventLog.js";
import { toLogRecord, toStoredEvent, type EventListRow, type EventReadRow } from "../journal/eventRows.js";
import { EVENT_JOIN, eventWhere, OUTCOME_JSON } from "./filterSql.js";

const EVENT_COLUMNS = `v.seq, e.ts, e.event, e.session_id, e.match_value, e.project_dir, e.source, e.ref, e.run_id,
  e.config_hash, e.machine, e.os_user, e.judged_by, e.seq AS origin_seq,
  (SELECT value FROM log_meta WHERE key = 'log_id') AS writer_id, v.decision AS e_decision, e.reason AS e_reason, e.body AS payload, ${OUTCOME_JSON} AS outcome,
  (SELECT json_group_array(json(h.body)) FROM journal h WHERE h.kind = 'hook' AND h.ref = v.seq AND h.format >= 4) AS async_hooks`;

/** Matching events, newest first, streamed row by row. */
export async function* queryEvents(db: Database, filter: LogFilter, limit: number): AsyncGenerator<LogRecord> {
  const { where, params } = eventWhere(filter);
  const rows = db
    .prepare(`SELECT ${EVENT_COLUMNS} FROM ${EVENT_JOIN} WHERE ${where} ORDER BY v.seq DESC LIMIT ?`)
    .iterate(...params, limit) as IterableIterator<EventListRow>;
  for (const row of rows) yield toLogRecord(row);
}

/** Rows per page when reading for replay: a page is read whole, so no statement stays open while rows are used. */
const PAGE = 200;

/** Every matching event, oldest first, by keyset pages: memory stays flat however long the log is. */
export async function* readEvents(db: Database, filter: LogFilter, from = 0): AsyncGenerator<StoredEvent> {
  const { where, params } = eventWhere(filter);
  const page = db.prepare(
    `SELECT v.seq, e.event, e.session_id, e.match_value, e.project_dir, e.body AS payload,
            coalesce(v.decision, 'unfinished') AS decision, v.blocked, coalesce(o.reason, e.reason) AS reason,
            (SELECT json_group_array(h.name) FROM (SELECT name FROM proj_hooks h WHERE h.event_seq = v.seq ORDER BY h.idx) h) AS hooks
     FROM ${EVENT_JOIN} WHERE ${where} AND v.seq > ? ORDER BY v.seq LIMIT ${PAGE}`,
  );
  for (let after = from; ; ) {
    const rows = page.all(...params, after) as ReadRow[];
    for (const r of rows) yield toStoredEvent(r, JSON.parse(r.hooks) as string[]);
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.seq;
  }
}

/** The hook names come as one JSON array. */
type ReadRow = EventReadRow & { hooks: string };

export function countEvents(db: Database, filter: LogFilter): number {
  const { where, params } = eventWhere(filter);
  const row = db.prepare(`SELECT count(*) AS n FROM ${EVENT_JOIN} WHERE ${where}`).get(...params) as { n: number };
  return row.n;
}
