import type { Database } from "better-sqlite3";
import type { LogRecord } from "../../schema/logRecord.js";
import type { LogFilter, StoredEvent } from "../eventLog.js";
import { toLogRecord, toStoredEvent, type EventListRow, type EventReadRow } from "../journal/eventRows.js";
import { wellFormed } from "../journal/hashFormat.js";

/**
 * The WHERE clause and parameters for a filter, over the event projection `v` joined to the event's record `e` and
 * its outcome's record `o`; shared by the audit listing and replay's selection.
 */
function eventWhere(filter: LogFilter): { where: string; params: Record<string, unknown> } {
  const terms: string[] = [];
  const params: Record<string, unknown> = {};
  // Written to match the partial indexes' own WHERE clauses (projections.ts), so that SQLite can use them.
  if (filter.replayRun !== undefined) {
    terms.push("v.run_id IS NOT NULL", "v.run_id = @run");
    params.run = wellFormed(filter.replayRun);
  } else terms.push("v.run_id IS NULL");
  if (filter.event !== undefined) {
    terms.push("v.event = @event");
    params.event = filter.event;
  }
  if (filter.sessions?.length) {
    terms.push(`v.session_id IN (${filter.sessions.map((_, i) => `@s${i}`).join(", ")})`);
    filter.sessions.forEach((s, i) => (params[`s${i}`] = wellFormed(s)));
  }
  if (filter.tool !== undefined) {
    terms.push("v.match_value = @tool");
    params.tool = wellFormed(filter.tool);
  }
  if (filter.decision !== undefined) {
    if (filter.decision === "unfinished") terms.push("v.decision IS NULL");
    else {
      terms.push("v.decision = @decision");
      params.decision = filter.decision;
    }
  }
  if (filter.blocked === true) terms.push("v.blocked = 1");
  else if (filter.blocked === false) terms.push("v.blocked = 0");
  if (filter.hook !== undefined) {
    terms.push("EXISTS (SELECT 1 FROM proj_hooks h WHERE h.event_seq = v.seq AND (instr(h.name, @hook) > 0 OR instr(coalesce(h.command, ''), @hook) > 0))");
    params.hook = wellFormed(filter.hook);
  }
  if (filter.grep !== undefined) {
    // instr() is case-sensitive, as --grep promises (LIKE would not be).
    terms.push("(instr(e.body, @grep) > 0 OR instr(coalesce(o.reason, e.reason, ''), @grep) > 0)");
    params.grep = wellFormed(filter.grep);
  }
  // Rare, and read by audits only: the outcome's own JSON says it, no projection keeps it.
  if (filter.shadow === true) terms.push(`json_extract(${OUTCOME_JSON}, '$.shadow.changed') = 1`);
  if (filter.since !== undefined) {
    terms.push("v.ts >= @since");
    params.since = filter.since.toISOString();
  }
  if (filter.until !== undefined) {
    terms.push("v.ts < @until");
    params.until = filter.until.toISOString();
  }
  return { where: terms.join(" AND "), params };
}

/** The outcome JSON of an event: in its own record when judged in one step, else in its outcome record. */
const OUTCOME_JSON = "CASE WHEN v.outcome_seq = v.seq THEN e.outcome ELSE o.body END";

const EVENT_COLUMNS = `v.seq, e.ts, e.event, e.session_id, e.match_value, e.project_dir, e.source, e.ref, e.run_id,
  e.config_hash, v.decision AS e_decision, e.reason AS e_reason, e.body AS payload, ${OUTCOME_JSON} AS outcome,
  (SELECT json_group_array(json(h.body)) FROM journal h WHERE h.kind = 'hook' AND h.ref = v.seq AND h.format >= 4) AS async_hooks`;
const EVENT_JOIN = "proj_events v JOIN journal e ON e.seq = v.seq LEFT JOIN journal o ON o.seq = v.outcome_seq AND v.outcome_seq <> v.seq";

/** Matching events, newest first, streamed row by row. */
export async function* queryEvents(db: Database, filter: LogFilter, limit: number): AsyncGenerator<LogRecord> {
  const { where, params } = eventWhere(filter);
  const rows = db
    .prepare(`SELECT ${EVENT_COLUMNS} FROM ${EVENT_JOIN} WHERE ${where} ORDER BY v.seq DESC LIMIT @limit`)
    .iterate({ ...params, limit }) as IterableIterator<EventListRow>;
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
     FROM ${EVENT_JOIN} WHERE ${where} AND v.seq > @after ORDER BY v.seq LIMIT ${PAGE}`,
  );
  for (let after = from; ; ) {
    const rows = page.all({ ...params, after }) as ReadRow[];
    for (const r of rows) yield toStoredEvent(r, JSON.parse(r.hooks) as string[]);
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.seq;
  }
}

/** The hook names come as one JSON array. */
type ReadRow = EventReadRow & { hooks: string };

export function countEvents(db: Database, filter: LogFilter): number {
  const { where, params } = eventWhere(filter);
  const row = db.prepare(`SELECT count(*) AS n FROM ${EVENT_JOIN} WHERE ${where}`).get(params) as { n: number };
  return row.n;
}
