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
export function eventWhere(filter: LogFilter): { where: string; params: Record<string, unknown>; order: string } {
  const terms: string[] = ["e.kind = 'event'"];
  const params: Record<string, unknown> = {};
  // When the outcome decides the selection, ordering by its `ref` (which is e.seq) lets SQLite read the outcome
  // indexes in order, newest first, and stop at the limit; ordering by e.seq would sort every match first.
  let order = "e.seq";
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
    // Said so that SQLite can walk the outcome index by decision instead of the whole log: a rare decision
    // (deny) in a million events is then as quick to list as a common one.
    if (filter.decision === "recorded" || filter.decision === "rejected") terms.push("e.decision = @decision");
    else if (filter.decision === "unfinished") terms.push("e.decision IS NULL AND o.seq IS NULL");
    else {
      terms.push("o.kind = 'outcome' AND o.decision = @decision");
      order = "o.ref";
    }
    params.decision = filter.decision;
  }
  if (filter.blocked === true) {
    terms.push("o.kind = 'outcome' AND o.blocked = 1");
    order = "o.ref";
  } else if (filter.blocked === false) terms.push("coalesce(o.blocked, 0) = 0");
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
  return { where: terms.join(" AND "), params, order };
}

export const EVENT_COLUMNS = `e.seq, e.ts, e.event, e.session_id, e.match_value, e.project_dir, e.source, e.ref, e.run_id,
  e.config_hash, e.decision AS e_decision, e.reason AS e_reason, e.body AS payload, o.body AS outcome`;
export const EVENT_JOIN = "journal e LEFT JOIN journal o ON o.kind = 'outcome' AND o.ref = e.seq";

/** Matching events, newest first, streamed row by row. */
export async function* queryEvents(db: Database, filter: LogFilter, limit: number): AsyncGenerator<LogRecord> {
  const { where, params, order } = eventWhere(filter);
  const rows = db.prepare(`SELECT ${EVENT_COLUMNS} FROM ${EVENT_JOIN} WHERE ${where} ORDER BY ${order} DESC LIMIT @limit`).iterate({ ...params, limit }) as IterableIterator<EventListRow>;
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
  // An outcome logged before `skipped` existed has none.
  if (outcome) return { ...outcome, skipped: (outcome.skipped as Outcome["skipped"] | undefined) ?? [], seq: row.seq, ...base };
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
    skipped: [],
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
    `SELECT e.seq, e.event, e.session_id, e.match_value, e.project_dir, e.body AS payload,
            coalesce(o.decision, e.decision, 'unfinished') AS decision, coalesce(o.blocked, 0) AS blocked,
            coalesce(o.reason, e.reason) AS reason,
            (SELECT json_group_array(h.name ORDER BY h.seq) FROM journal h WHERE h.kind = 'hook' AND h.ref = e.seq) AS hooks
     FROM ${EVENT_JOIN} WHERE ${where} AND e.seq > @after ORDER BY e.seq LIMIT ${PAGE}`,
  );
  for (let after = 0; ; ) {
    const rows = page.all({ ...params, after }) as ReadRow[];
    for (const r of rows) {
      yield {
        seq: r.seq,
        event: r.event as StoredEvent["event"],
        sessionId: r.session_id,
        matchValue: r.match_value,
        projectDir: r.project_dir ?? "",
        decision: r.decision as StoredEvent["decision"],
        blocked: r.blocked === 1,
        reason: r.reason,
        hooks: JSON.parse(r.hooks) as string[],
        payload: r.payload,
      };
    }
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.seq;
  }
}

interface ReadRow {
  seq: number;
  event: string | null;
  session_id: string | null;
  match_value: string | null;
  project_dir: string | null;
  payload: string;
  decision: string;
  blocked: number;
  reason: string | null;
  hooks: string;
}

export function countEvents(db: Database, filter: LogFilter): number {
  const { where, params } = eventWhere(filter);
  const row = db.prepare(`SELECT count(*) AS n FROM ${EVENT_JOIN} WHERE ${where}`).get(params) as { n: number };
  return row.n;
}
