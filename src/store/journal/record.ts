/**
 * One journal record as every backend stores it: the columns, in table order. A record is never updated in place;
 * its hash ties it to the record before it (see hashFormat.ts).
 */
export interface JournalRow {
  seq: number;
  ts: string;
  kind: JournalKind;
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
  /** The hash format of this record (3: every column hashed whole; 4: a content digest chained with the log id; 5: 4 with the origin). */
  format: number;
  /** An event judged in one step (no hook ran): its outcome JSON, in the same record. Format 4 only. */
  outcome: string | null;
  /** The host name of the machine that wrote the record (format 5 on; NULL before). */
  machine: string | null;
  /** The OS user that wrote it (format 5 on; NULL before, or when the system cannot tell). */
  os_user: string | null;
  /** An event judged by settings: the host (dialect) whose settings judged it; NULL otherwise. */
  judged_by: string | null;
}

/**
 * event: an arrival (its payload in `body`; with `outcome` when judged in one step); outcome: the outcome of an
 * event recorded earlier (`ref`), every hook result in `body`; snapshot: a configuration, once per hash;
 * replay_run: the start or the end of a replay run; hook: one hook's result (format 3: every hook's, besides the
 * outcome; format 4: only an async hook's, which is never part of the outcome, `ref` naming its event); erasure: the
 * content of an earlier record (`ref`) was erased, with the digests of the parts it had (see erasure.ts); prune: the
 * records before `ref` + 1 were deleted, the hash of record `ref` kept as the anchor the chain now starts from.
 */
export type JournalKind = "event" | "outcome" | "hook" | "snapshot" | "replay_run" | "erasure" | "prune" | "key";

/** Every column, in table order (and in the order of `journalValues`, for a positional INSERT). */
export const JOURNAL_COLUMNS = [
  "seq",
  "ts",
  "kind",
  "event",
  "session_id",
  "match_value",
  "project_dir",
  "source",
  "ref",
  "run_id",
  "config_hash",
  "name",
  "status",
  "decision",
  "blocked",
  "duration_ms",
  "reason",
  "body",
  "hash",
  "format",
  "outcome",
  "machine",
  "os_user",
  "judged_by",
] as const satisfies ReadonlyArray<keyof JournalRow>;

/** The columns a record's hash covers, in either format: all but `hash` itself. */
export const HASHED_COLUMNS = JOURNAL_COLUMNS.filter((c) => c !== "hash");

/**
 * A record's values in JOURNAL_COLUMNS order, for a positional INSERT: better-sqlite3 binds an array about 2 us a
 * row faster than named parameters from an object, which is why this list exists twice (a test keeps them equal).
 */
export function journalValues(row: Omit<JournalRow, "seq" | "hash">, seq: number, hash: string): unknown[] {
  return [
    seq,
    row.ts,
    row.kind,
    row.event,
    row.session_id,
    row.match_value,
    row.project_dir,
    row.source,
    row.ref,
    row.run_id,
    row.config_hash,
    row.name,
    row.status,
    row.decision,
    row.blocked,
    row.duration_ms,
    row.reason,
    row.body,
    hash,
    row.format,
    row.outcome,
    row.machine,
    row.os_user,
    row.judged_by,
  ];
}
