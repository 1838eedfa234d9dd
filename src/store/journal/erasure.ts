import { ERASED_TEXT, erasedPayloadOf } from "../../schema/erasedPayload.js";
import { localOrigin } from "./origin.js";
import { CURRENT_FORMAT, partDigests, type PartDigests } from "./hashFormat.js";
import type { JournalRow } from "./record.js";
import { bookkeepingRow, type PendingRow } from "./rows.js";

/**
 * Erasing and pruning, as every backend does them: what an erased part becomes, and the chained records that say
 * what was erased or pruned. Only the free-text parts are erased (a payload, a reason, an outcome's text); the small
 * columns (time, event, session, tool, project, decision) stay, so the audit still shows that the event happened
 * and how it was decided.
 */

/** What an erased reason or hook output reads as (an erased payload is an object: schema/erasedPayload.ts). */
export const ERASED = ERASED_TEXT;

/** Keys of an outcome whose values say how an event was decided, not what it held: kept when it is erased. */
const KEPT_KEYS = new Set([
  "event",
  "sessionId",
  "decision",
  "blocked",
  "continue",
  "suppressOutput",
  "configHash",
  "durationMs",
  "seq",
  "name",
  "command",
  "level",
  "matcher",
  "outcome",
  "exitCode",
  "signal",
  "timedOut",
  "truncated",
  "type",
  "file",
  "plugin",
]);

/** An outcome's JSON with its text erased: every string but those of KEPT_KEYS, at any depth; arrays of text emptied. */
export function eraseOutcomeJson(json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return ERASED;
  }
  const walk = (v: unknown, keep: boolean): unknown => {
    if (typeof v === "string") return keep ? v : ERASED;
    if (Array.isArray(v)) return v.every((x) => typeof x === "string") ? (v.length ? [ERASED] : []) : v.map((x) => walk(x, false));
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, KEPT_KEYS.has(k))]));
    return v;
  };
  return JSON.stringify(walk(value, false));
}

/** A record's free-text parts once erased: an event's payload stays a JSON object, an outcome keeps its shape. */
export function erasedParts(row: Pick<JournalRow, "kind" | "reason" | "body" | "outcome">): Pick<JournalRow, "reason" | "body" | "outcome"> {
  const body = row.kind === "outcome" ? eraseOutcomeJson(row.body) : row.kind === "event" ? JSON.stringify(erasedPayloadOf(row.body)) : ERASED;
  return {
    reason: row.reason === null ? null : ERASED,
    body,
    outcome: row.outcome === null ? null : eraseOutcomeJson(row.outcome),
  };
}

/** The body of an erasure record: which record, and the digests its parts had. */
export interface ErasureBody {
  readonly seq: number;
  readonly format: number;
  /** The erased record's hash-format-4 part digests before the erasure (format 3: its hash covered them whole). */
  readonly parts: PartDigests;
  readonly why: string | null;
}

export function erasureRow(ts: string, erased: Pick<JournalRow, "seq" | "format" | "reason" | "body" | "outcome">, why: string | null): PendingRow {
  const body: ErasureBody = { seq: erased.seq, format: erased.format, parts: partDigests(erased), why };
  return bookkeepingRow(ts, "erasure", body, { ref: erased.seq });
}

/** The body of a prune record: the anchor (the last deleted record and its hash), and what was deleted. */
export interface PruneBody {
  readonly through: number;
  readonly hash: string;
  readonly records: number;
  readonly before: string;
}

export function pruneRow(ts: string, body: PruneBody): PendingRow {
  return {
    ts,
    kind: "prune",
    event: null,
    session_id: null,
    match_value: null,
    project_dir: null,
    source: null,
    ref: body.through,
    run_id: null,
    config_hash: null,
    name: null,
    status: null,
    decision: null,
    blocked: null,
    duration_ms: null,
    reason: null,
    body: JSON.stringify(body),
    format: CURRENT_FORMAT,
    outcome: null,
    machine: localOrigin().machine,
    os_user: localOrigin().user,
    judged_by: null,
  };
}
