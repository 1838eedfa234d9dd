import type { Statement } from "better-sqlite3";
import { refusal, stopStreakStep } from "../journal/appendRules.js";
import { linkHash } from "../journal/hashFormat.js";
import { PREPARE_AHEAD_MAX, ReadyRow, type AppendOutcome, type PreparedAppend } from "../journal/prepareAppend.js";
import { JOURNAL_COLUMNS } from "../journal/record.js";
import { snapshotRow } from "../journal/rows.js";

const SEQ = JOURNAL_COLUMNS.indexOf("seq");
const HASH = JOURNAL_COLUMNS.indexOf("hash");

/**
 * Places the records of several appends after the chain's head, in one transaction that the caller opens
 * (BEGIN IMMEDIATE: under the write lock, no other process can append in between, so concurrent appenders always
 * leave one valid chain). An append whose outcome names no event is refused alone; the others go through.
 * Returns, with each append's outcome, the snapshot hashes it added (known once the transaction commits).
 */
export interface AppendedRecords {
  readonly outcomes: AppendOutcome[];
  /** Snapshot hashes this transaction added to the log. */
  readonly snapshots: string[];
  /** Records placed. */
  readonly records: number;
  /** The chain's head after the transaction, and its seq before it. */
  readonly head: { readonly before: number; readonly seq: number; readonly hash: string };
}

/** What appending needs of an open log (its Connection): the statements of the write path, and what it knows. */
export interface AppendTarget {
  readonly logId: string;
  readonly knownSnapshots: { has(hash: string): boolean };
  readonly head: Statement;
  readonly insert: Statement;
  readonly snapshotKnown: Statement;
  readonly eventOf: Statement;
  readonly streakUp: Statement;
  readonly streakReset: Statement;
}

export function appendRecords(conn: AppendTarget, appends: readonly PreparedAppend[]): AppendedRecords {
  const head = conn.head.get() as { seq: number; hash: string } | undefined;
  let seq = head?.seq ?? 0;
  let hash = head?.hash ?? "";
  const added: string[] = [];
  const place = (ready: ReadyRow): number => {
    const { digest, values } = ready.make();
    hash = linkHash(conn.logId, ++seq, hash, digest);
    values[SEQ] = seq;
    values[HASH] = hash;
    conn.insert.run(values);
    return seq;
  };
  const outcomes = appends.map((append): AppendOutcome => {
    // Outcomes first: each must follow an event of this log that has none yet. Its event says whether it is live.
    const live: boolean[] = [];
    for (const row of append.rows) {
      if (row.kind !== "hook" && row.kind !== "outcome") {
        live.push(row.live);
        continue;
      }
      const found = conn.eventOf.get(row.ref) as { kind: string; run_id: string | null; judged: number } | undefined;
      const event = found?.kind === "event" ? found : undefined;
      const refused = refusal(row, event && { judged: event.judged !== 0 });
      if (refused) return { ok: false, error: refused };
      // An async hook's result counts for nothing live; an outcome is as live as its event.
      live.push(row.kind === "outcome" && event!.run_id === null);
    }
    for (const { ts, snapshot } of append.snapshots) {
      if (conn.knownSnapshots.has(snapshot.hash) || added.includes(snapshot.hash) || conn.snapshotKnown.get(snapshot.hash)) continue;
      place(ReadyRow.of(snapshotRow(ts, snapshot)));
      added.push(snapshot.hash);
    }
    const rowSeqs = append.rows.map((ready, i) => {
      keepStopStreak(conn, ready.row, live[i]!);
      const seq = place(ready);
      if (append.rows.length > PREPARE_AHEAD_MAX) ready.forget();
      return seq;
    });
    return { ok: true, seqs: append.entryRows.map((i) => rowSeqs[i]!) };
  });
  return { outcomes, snapshots: added, records: seq - (head?.seq ?? 0), head: { before: head?.seq ?? 0, seq, hash } };
}

/** The Stop-loop guard's count (appendRules.ts), in the same transaction as the record. */
function keepStopStreak(conn: AppendTarget, row: ReadyRow["row"], live: boolean): void {
  const step = stopStreakStep(row, live);
  if (step === "up") conn.streakUp.run(row.session_id);
  else if (step === "reset") conn.streakReset.run(row.session_id);
}
