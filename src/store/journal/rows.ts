import type { HookResult, Outcome } from "../../schema/outcome.js";
import type { ReplayRun } from "../../schema/replay.js";
import type { EventEntry, SnapshotRecord } from "../eventLog.js";
import { localOrigin } from "./origin.js";
import { CURRENT_FORMAT, wellFormed, wellFormedOrNull } from "./hashFormat.js";
import type { JournalRow } from "./record.js";

/**
 * The records the log appends, in the current format: an event is one record when it is judged in one step (no
 * hook ran: arrival and outcome together), two when hooks ran (its arrival, durable before any hook command runs,
 * then its outcome with every hook result). Nothing else is written on the dispatch path: the audit indexes are
 * projections, brought up to date from these records later (see ../sqlite/projections.ts).
 */

/** A record not yet placed in the chain (no seq, no hash yet). */
export type PendingRow = Omit<JournalRow, "seq" | "hash">;

// Every row below is one object literal naming all of its columns. V8 (Node 20) stores each key written after a
// spread in an object literal through a slow runtime path: about 7 us a row against 0.1 us for a flat literal.

export function snapshotRow(ts: string, snapshot: SnapshotRecord): PendingRow {
  const body = JSON.stringify({
    document: snapshot.document,
    warnings: snapshot.warnings,
    ...(snapshot.sources ? { sources: snapshot.sources } : {}),
    ...(snapshot.dialect ? { dialect: snapshot.dialect } : {}),
    ...(snapshot.attestation ? { attestation: snapshot.attestation } : {}),
  });
  return storedSnapshotRow(ts, wellFormed(snapshot.hash), body);
}

/**
 * A snapshot record of a body the log already holds (well formed, as stored): what a prune copies to the head for
 * a configuration that kept or later events are still judged by, after the record that held it is deleted.
 */
export function storedSnapshotRow(ts: string, configHash: string, body: string): PendingRow {
  return {
    ts,
    kind: "snapshot",
    event: null,
    session_id: null,
    match_value: null,
    project_dir: null,
    source: null,
    ref: null,
    run_id: null,
    config_hash: configHash,
    name: null,
    status: null,
    decision: null,
    blocked: null,
    duration_ms: null,
    reason: null,
    body,
    format: CURRENT_FORMAT,
    outcome: null,
    machine: localOrigin().machine,
    os_user: localOrigin().user,
    judged_by: null,
  };
}

/** An event; with its outcome in the same record when it was judged in one step. */
export function eventRow(entry: EventEntry): PendingRow {
  const outcome = entry.outcome;
  return {
    ts: entry.ts.toISOString(),
    kind: "event",
    event: entry.event,
    session_id: wellFormedOrNull(entry.sessionId),
    match_value: wellFormedOrNull(entry.matchValue),
    project_dir: wellFormed(entry.projectDir),
    source: entry.source,
    ref: entry.replay?.of ?? null,
    run_id: entry.replay ? wellFormed(entry.replay.runId) : null,
    config_hash: entry.snapshot ? wellFormed(entry.snapshot.hash) : null,
    name: null,
    status: null,
    decision: outcome ? outcome.decision : entry.rejection !== null ? "rejected" : entry.source === "record" ? "recorded" : null,
    blocked: outcome ? (outcome.blocked ? 1 : 0) : null,
    duration_ms: outcome ? outcome.durationMs : null,
    reason: outcome ? wellFormedOrNull(outcome.reason) : wellFormedOrNull(entry.rejection),
    body: wellFormed(entry.payload),
    format: CURRENT_FORMAT,
    // JSON.stringify escapes lone surrogates: its output is always well formed.
    outcome: outcome ? JSON.stringify(outcome) : null,
    machine: localOrigin().machine,
    os_user: localOrigin().user,
    // The host whose settings judged it (a snapshot names its host unless it is the default one).
    // A recorded event was judged by none: the column names the host that sent it (`record` pins its dialect too).
    judged_by: entry.snapshot ? (entry.snapshot.dialect ?? "qoder") : (entry.host ?? null),
  };
}

/**
 * The outcome of an event appended earlier (`eventSeq`), with every hook result (output included). Where the event
 * came from (its project, its replay run) stays on the event's record.
 */
export function outcomeRow(ts: string, eventSeq: number, outcome: Outcome): PendingRow {
  return {
    ts,
    kind: "outcome",
    event: outcome.event,
    session_id: wellFormed(outcome.sessionId),
    match_value: null,
    project_dir: null,
    source: null,
    ref: eventSeq,
    run_id: null,
    config_hash: wellFormed(outcome.configHash),
    name: null,
    status: null,
    decision: outcome.decision,
    blocked: outcome.blocked ? 1 : 0,
    duration_ms: outcome.durationMs,
    reason: wellFormedOrNull(outcome.reason),
    body: JSON.stringify(outcome),
    format: CURRENT_FORMAT,
    outcome: null,
    machine: localOrigin().machine,
    os_user: localOrigin().user,
    judged_by: null,
  };
}

/** The result of an async hook of an event appended earlier (`eventSeq`), output included. */
export function hookRow(ts: string, eventSeq: number, event: string, sessionId: string | null, result: HookResult): PendingRow {
  return {
    ts,
    kind: "hook",
    event,
    session_id: wellFormedOrNull(sessionId),
    match_value: null,
    project_dir: null,
    source: null,
    ref: eventSeq,
    run_id: null,
    config_hash: null,
    name: wellFormed(result.name),
    status: result.outcome,
    decision: result.decision,
    blocked: null,
    duration_ms: result.durationMs,
    reason: wellFormedOrNull(result.reason),
    body: JSON.stringify(result),
    format: CURRENT_FORMAT,
    outcome: null,
    machine: localOrigin().machine,
    os_user: localOrigin().user,
    judged_by: null,
  };
}

export function replayRunRow(ts: string, run: ReplayRun): PendingRow {
  return bookkeepingRow(ts, "replay_run", run, { run_id: wellFormed(run.runId) });
}

/**
 * A record of the log's own bookkeeping (a replay run, an erasure, a key change): no event, session or hook, its
 * content in `body`; `extra` fills the one or two link columns a kind uses.
 */
export function bookkeepingRow(ts: string, kind: JournalRow["kind"], body: unknown, extra: Partial<PendingRow> = {}): PendingRow {
  return {
    ts,
    kind,
    event: null,
    session_id: null,
    match_value: null,
    project_dir: null,
    source: null,
    ref: null,
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
    ...extra,
  };
}
