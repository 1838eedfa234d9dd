import type { Database } from "better-sqlite3";
import { nestsDeeperThan } from "../../json/jsonDepth.js";
import type { LogRecord } from "../../schema/logRecord.js";
import type { Outcome } from "../../schema/outcome.js";
import type { LogFilter, StoredEvent } from "../eventLog.js";

interface EventListRow {
  seq: number;
  ts: string;
  event: string | null;
  session_id: string | null;
  match_value: string | null;
  project_dir: string | null;
  source: string;
  ref: number | null;
  run_id: string | null;
  config_hash: string | null;
  e_decision: string | null;
  e_reason: string | null;
  payload: string;
  outcome: string | null;
}

/** The WHERE clause and parameters for a filter; shared by the audit listing and replay's selection. */
export function eventWhere(filter: LogFilter): { where: string; params: Record<string, unknown> } {
  const terms: string[] = ["e.kind = 'event'"];
  const params: Record<string, unknown> = {};
  // Written to match the partial indexes' own WHERE clauses, so that SQLite can use them.
  if (filter.replayRun !== undefined) {
    terms.push("e.run_id IS NOT NULL", "e.run_id = @run");
    params.run = filter.replayRun;
  } else terms.push("e.run_id IS NULL");
  if (filter.event !== undefined) {
    terms.push("e.event = @event");
    params.event = filter.event;
  }
  if (filter.sessions?.length) {
    terms.push(`e.session_id IN (${filter.sessions.map((_, i) => `@s${i}`).join(", ")})`);
    filter.sessions.forEach((s, i) => (params[`s${i}`] = s));
  }
  if (filter.tool !== undefined) {
    terms.push("e.match_value = @tool");
    params.tool = filter.tool;
  }
  if (filter.decision !== undefined) {
    terms.push("coalesce(o.decision, e.decision, 'unfinished') = @decision");
    params.decision = filter.decision;
  }
  if (filter.blocked !== undefined) terms.push(filter.blocked ? "o.blocked = 1" : "coalesce(o.blocked, 0) = 0");
  if (filter.hook !== undefined) {
    terms.push(
      "EXISTS (SELECT 1 FROM journal h WHERE h.kind = 'hook' AND h.ref = e.seq AND (instr(h.name, @hook) > 0 OR instr(coalesce(json_extract(h.body, '$.command'), ''), @hook) > 0))",
    );
    params.hook = filter.hook;
  }
  if (filter.grep !== undefined) {
    // instr() is case-sensitive, as --grep promises (LIKE would not be).
    terms.push("(instr(e.body, @grep) > 0 OR instr(coalesce(o.reason, e.reason, ''), @grep) > 0)");
    params.grep = filter.grep;
  }
  if (filter.since !== undefined) {
    terms.push("e.ts >= @since");
    params.since = filter.since.toISOString();
  }
  if (filter.until !== undefined) {
    terms.push("e.ts < @until");
    params.until = filter.until.toISOString();
  }
  return { where: terms.join(" AND "), params };
}

export const EVENT_COLUMNS = `e.seq, e.ts, e.event, e.session_id, e.match_value, e.project_dir, e.source, e.ref, e.run_id,
  e.config_hash, e.decision AS e_decision, e.reason AS e_reason, e.body AS payload, o.body AS outcome`;
export const EVENT_JOIN = "journal e LEFT JOIN journal o ON o.kind = 'outcome' AND o.ref = e.seq";

/** Matching events, newest first, streamed row by row. */
export async function* queryEvents(db: Database, filter: LogFilter, limit: number): AsyncGenerator<LogRecord> {
  const { where, params } = eventWhere(filter);
  const rows = db.prepare(`SELECT ${EVENT_COLUMNS} FROM ${EVENT_JOIN} WHERE ${where} ORDER BY e.seq DESC LIMIT @limit`).iterate({ ...params, limit }) as IterableIterator<EventListRow>;
  for (const row of rows) yield toLogRecord(row);
}

export function toLogRecord(row: EventListRow): LogRecord {
  const outcome = row.outcome === null ? null : (JSON.parse(row.outcome) as Outcome);
  const base = {
    ts: row.ts,
    matchValue: row.match_value,
    projectDir: row.project_dir ?? "",
    payload: parseOr(row.payload),
    source: row.source as LogRecord["source"],
    replay: row.run_id !== null && row.ref !== null ? { runId: row.run_id, of: row.ref } : null,
  };
  if (outcome) return { ...outcome, seq: row.seq, ...base };
  return {
    event: row.event as LogRecord["event"],
    sessionId: row.session_id,
    seq: row.seq,
    decision: (row.e_decision ?? "unfinished") as LogRecord["decision"],
    blocked: false,
    reason: row.e_reason,
    continue: true,
    stopReason: null,
    systemMessages: [],
    additionalContext: [],
    updatedInput: null,
    suppressOutput: false,
    configHash: row.config_hash,
    durationMs: null,
    hooks: [],
    warnings: [],
    ...base,
  };
}

/**
 * A stored payload as JSON when it parses; otherwise, or when it nests too deep to be printed again (an agent may
 * send any depth, and hooks got it as it was), its text.
 */
function parseOr(text: string): unknown {
  if (nestsDeeperThan(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Rows per page when reading for replay: a page is read whole, so no statement stays open while rows are used. */
const PAGE = 200;

/** Every matching event, oldest first, by keyset pages: memory stays flat however long the log is. */
export async function* readEvents(db: Database, filter: LogFilter): AsyncGenerator<StoredEvent> {
  const { where, params } = eventWhere(filter);
  const page = db.prepare(
    `SELECT ${EVENT_COLUMNS} FROM ${EVENT_JOIN} WHERE ${where} AND e.seq > @after
     ORDER BY e.seq LIMIT ${PAGE}`,
  );
  for (let after = 0; ; ) {
    const rows = page.all({ ...params, after }) as EventListRow[];
    for (const row of rows) yield { record: toLogRecord(row), payload: row.payload };
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.seq;
  }
}

export function countEvents(db: Database, filter: LogFilter): number {
  const { where, params } = eventWhere(filter);
  const row = db.prepare(`SELECT count(*) AS n FROM ${EVENT_JOIN} WHERE ${where}`).get(params) as { n: number };
  return row.n;
}
