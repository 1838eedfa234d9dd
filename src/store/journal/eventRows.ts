import { toolInputSummary } from "../../core/toolInputSummary.js";
import { loggedCallerOf } from "../../hosts/callerHost.js";
import { nestsDeeperThan } from "../../json/jsonDepth.js";
import type { LogRecord } from "../../schema/logRecord.js";
import type { Outcome } from "../../schema/outcome.js";
import type { StoredEvent } from "../eventLog.js";

/**
 * What an event's row, as either backend's query reads it, becomes: a LogRecord for the audit listing, a
 * StoredEvent for replay and export. Each backend's SQL gives these columns; what they mean is said here once.
 */

/** An event's row as both backends' listings read it (the same columns, texts decoded). */
export interface EventListRow {
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
  async_hooks: string | null;
  machine: string | null;
  os_user: string | null;
  judged_by: string | null;
  /** The log the event was written to (SQLite: the file's log id; PostgreSQL: the chain's writer). */
  writer_id: string | null;
  /** Its seq in that log. */
  origin_seq: number;
}

export function toLogRecord(row: EventListRow): LogRecord {
  const outcome = row.outcome === null ? null : (JSON.parse(row.outcome) as Outcome);
  const payload = parseOr(row.payload);
  const base = {
    ts: row.ts,
    matchValue: row.match_value,
    // Made here, where both backends' rows become records, so that SQLite and PostgreSQL list the same summary.
    tried: toolInputSummary(payload),
    caller: loggedCallerOf(payload, row.judged_by),
    projectDir: row.project_dir ?? "",
    payload,
    asyncHooks: row.async_hooks === null ? [] : (JSON.parse(row.async_hooks) as LogRecord["asyncHooks"]),
    source: row.source as LogRecord["source"],
    replay: row.run_id !== null && row.ref !== null ? { runId: row.run_id, of: row.ref } : null,
    origin: { machine: row.machine, user: row.os_user, writer: row.writer_id, seq: Number(row.origin_seq), host: row.judged_by },
  };
  // An outcome logged before `skipped` (or `env`) existed has none.
  if (outcome)
    return {
      ...outcome,
      skipped: (outcome.skipped as Outcome["skipped"] | undefined) ?? [],
      env: (outcome.env as Outcome["env"] | undefined) ?? {},
      seq: row.seq,
      ...base,
    };
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
    env: {},
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

/** An event's row as replay's reading reads it (the hook names apart: each backend has them in its own form). */
export interface EventReadRow {
  seq: number;
  event: string | null;
  session_id: string | null;
  match_value: string | null;
  project_dir: string | null;
  payload: string;
  /** Null while the event has no outcome. */
  decision: string | null;
  blocked: number | null;
  reason: string | null;
}

export function toStoredEvent(r: EventReadRow, hooks: string[]): StoredEvent {
  return {
    seq: r.seq,
    event: r.event as StoredEvent["event"],
    sessionId: r.session_id,
    matchValue: r.match_value,
    projectDir: r.project_dir ?? "",
    decision: (r.decision ?? "unfinished") as StoredEvent["decision"],
    blocked: r.blocked === 1,
    reason: r.reason,
    hooks,
    payload: r.payload,
  };
}
