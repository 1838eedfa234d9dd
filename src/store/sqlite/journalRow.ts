import { createHash } from "node:crypto";
import type { Outcome } from "../../schema/outcome.js";
import type { ReplayRun } from "../../schema/replay.js";
import type { EventEntry, SnapshotRecord } from "../eventLog.js";

/** One journal record, as stored. Every column but `hash` is covered by the hash. */
export interface JournalRow {
  seq: number;
  ts: string;
  kind: "event" | "outcome" | "hook" | "snapshot" | "replay_run";
  event: string | null;
  session_id: string | null;
  match_value: string | null;
  project_dir: string | null;
  source: string | null;
  ref: number | null;
  run_id: string | null;
  config_hash: string | null;
  name: string | null;
  status: string | null;
  decision: string | null;
  blocked: number | null;
  duration_ms: number | null;
  reason: string | null;
  body: string;
  hash: string;
}

export const HASHED_COLUMNS = [
  "seq", "ts", "kind", "event", "session_id", "match_value", "project_dir", "source", "ref", "run_id",
  "config_hash", "name", "status", "decision", "blocked", "duration_ms", "reason", "body",
] as const satisfies ReadonlyArray<keyof JournalRow>;

/** Every column, in the order of `journalValues` (and of the INSERT built from this list). */
export const JOURNAL_COLUMNS = [...HASHED_COLUMNS, "hash"] as const;

/**
 * A row's values in JOURNAL_COLUMNS order, for a positional INSERT: better-sqlite3 binds an array about 2 us a row
 * faster than named parameters from an object (a quarter of an append's CPU), which is why this list exists twice.
 */
export function journalValues(row: JournalRow): unknown[] {
  return [
    row.seq, row.ts, row.kind, row.event, row.session_id, row.match_value, row.project_dir, row.source, row.ref, row.run_id,
    row.config_hash, row.name, row.status, row.decision, row.blocked, row.duration_ms, row.reason, row.body, row.hash,
  ];
}

/** The chain: each record's hash covers the previous record's hash and all of its own columns. */
export function hashRow(previousHash: string, row: Omit<JournalRow, "hash">): string {
  // The hashed text is built whole and hashed in one update() call: the same bytes as hashing piece by piece, at
  // a third of the cost (every update() crosses into C++).
  let text = `${previousHash}\n`;
  for (const column of HASHED_COLUMNS) {
    const value = row[column];
    // Type-tagged, so that NULL, "" and 0 can never be confused, nor a column's end with the next one's start.
    text += value === null ? "n\u0000" : typeof value === "number" ? `d${value}\u0000` : `s${value.length}:${value}\u0000`;
  }
  return createHash("sha256").update(text).digest("hex");
}

/** A row not yet placed in the chain. `ref` may point at an earlier row of the same batch, by index. */
export type PendingRow = Omit<JournalRow, "seq" | "hash" | "ref"> & { ref: number | { batchIndex: number } | null };

// Every row below is one object literal naming all of its columns. Rows used to be built as `{ ...EMPTY, column:
// value }`: V8 (Node 20) stores each key written after a spread in an object literal through a slow runtime path,
// about 7 us for a row against 0.1 us for a flat literal.

export function snapshotRow(ts: string, snapshot: SnapshotRecord): PendingRow {
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
    config_hash: snapshot.hash,
    name: null,
    status: null,
    decision: null,
    blocked: null,
    duration_ms: null,
    reason: null,
    body: JSON.stringify({ document: snapshot.document, warnings: snapshot.warnings }),
  };
}

export function eventRow(entry: EventEntry): PendingRow {
  return {
    ts: entry.ts.toISOString(),
    kind: "event",
    event: entry.event,
    session_id: entry.sessionId,
    match_value: entry.matchValue,
    project_dir: entry.projectDir,
    source: entry.source,
    ref: entry.replay?.of ?? null,
    run_id: entry.replay?.runId ?? null,
    config_hash: entry.snapshot?.hash ?? null,
    name: null,
    status: null,
    decision: entry.rejection !== null ? "rejected" : entry.source === "record" ? "recorded" : null,
    blocked: null,
    duration_ms: null,
    reason: entry.rejection,
    body: entry.payload,
  };
}

/** An outcome's row, then one row per hook run (without its output, which the outcome row keeps). */
export function outcomeRows(ts: string, eventRef: PendingRow["ref"], outcome: Outcome, context: { matchValue: string | null; projectDir: string | null; source: string | null; runId: string | null }): PendingRow[] {
  const rows: PendingRow[] = [
    {
      ts,
      kind: "outcome",
      event: outcome.event,
      session_id: outcome.sessionId,
      match_value: context.matchValue,
      project_dir: context.projectDir,
      source: context.source,
      ref: eventRef,
      run_id: context.runId,
      config_hash: outcome.configHash,
      name: null,
      status: null,
      decision: outcome.decision,
      blocked: outcome.blocked ? 1 : 0,
      duration_ms: outcome.durationMs,
      reason: outcome.reason,
      body: JSON.stringify(outcome),
    },
  ];
  outcome.hooks.forEach((hook, index) => {
    const { stdout: _out, stderr: _err, ...summary } = hook;
    rows.push({
      ts,
      kind: "hook",
      event: outcome.event,
      session_id: outcome.sessionId,
      match_value: context.matchValue,
      project_dir: context.projectDir,
      source: context.source,
      ref: eventRef,
      run_id: context.runId,
      config_hash: outcome.configHash,
      name: hook.name,
      status: hook.outcome,
      decision: hook.decision,
      blocked: hook.outcome === "block" ? 1 : 0,
      duration_ms: hook.durationMs,
      reason: hook.reason,
      body: JSON.stringify({ index, ...summary }),
    });
  });
  return rows;
}

export function replayRunRow(ts: string, run: ReplayRun): PendingRow {
  return {
    ts,
    kind: "replay_run",
    event: null,
    session_id: null,
    match_value: null,
    project_dir: null,
    source: null,
    ref: null,
    run_id: run.runId,
    config_hash: null,
    name: null,
    status: null,
    decision: null,
    blocked: null,
    duration_ms: null,
    reason: null,
    body: JSON.stringify(run),
  };
}

/** A pending row at its place in the chain, with every column (the hash is filled in once computed). */
export function placedRow(pending: PendingRow, seq: number, ref: number | null): JournalRow {
  return {
    seq,
    ts: pending.ts,
    kind: pending.kind,
    event: pending.event,
    session_id: pending.session_id,
    match_value: pending.match_value,
    project_dir: pending.project_dir,
    source: pending.source,
    ref,
    run_id: pending.run_id,
    config_hash: pending.config_hash,
    name: pending.name,
    status: pending.status,
    decision: pending.decision,
    blocked: pending.blocked,
    duration_ms: pending.duration_ms,
    reason: pending.reason,
    body: pending.body,
    hash: "",
  };
}
