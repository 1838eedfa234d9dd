import { QhooksError } from "../../errors.js";
import type { LogEntry, SnapshotRecord } from "../eventLog.js";
import { contentDigest, linkHash } from "./hashFormat.js";
import { JOURNAL_COLUMNS, journalValues } from "./record.js";
import { eventRow, hookRow, outcomeRow, replayRunRow, snapshotRow, type PendingRow } from "./rows.js";
import type { Statement } from "better-sqlite3";

/** Appends of at most this many entries are made into records before the transaction; larger ones as they are placed. */
const PREPARE_AHEAD_MAX = 32;

/**
 * A record ready to be placed: everything but its seq and its link, which only the transaction knows. Its values
 * are laid out for the INSERT (seq and hash filled in when placed): one array per record, not three objects.
 *
 * The record of a small append (what a dispatch writes) is made before the transaction, so that the write lock is
 * held only to check, link and insert. A large append's records are made one by one as they are placed and
 * forgotten once inserted: made ahead, thousands of records (their JSON, digests and values) all stayed alive
 * until the commit, and every young-generation collection in between copied them (about 750 ms of collections in
 * twelve 5,000-event appends, against 230 ms when each record dies young). Kind, ref and whether it is live are
 * known from the entry without making the record.
 */
export class ReadyRow {
  private made: { readonly row: PendingRow; readonly digest: string; readonly values: unknown[] } | undefined;

  constructor(
    readonly kind: PendingRow["kind"],
    /** The event an outcome or hook result belongs to. */
    readonly ref: number | null,
    /** For an event or a replay run: whether it is live history (not part of a replay run). */
    readonly live: boolean,
    private readonly build: () => PendingRow,
  ) {}

  static of(row: PendingRow): ReadyRow {
    const ready = new ReadyRow(row.kind, row.ref, row.run_id === null, () => row);
    ready.make();
    return ready;
  }

  get row(): PendingRow {
    return this.make().row;
  }

  get digest(): string {
    return this.make().digest;
  }

  get values(): unknown[] {
    return this.make().values;
  }

  make(): { readonly row: PendingRow; readonly digest: string; readonly values: unknown[] } {
    if (this.made === undefined) {
      const row = this.build();
      this.made = { row, digest: contentDigest(row), values: journalValues(row, 0, "") };
    }
    return this.made;
  }

  /** After its insert: made again if it is placed again (a transaction that is retried). */
  forget(): void {
    this.made = undefined;
  }
}

const SEQ = JOURNAL_COLUMNS.indexOf("seq");
const HASH = JOURNAL_COLUMNS.indexOf("hash");

function readyRow(entry: LogEntry): ReadyRow {
  switch (entry.kind) {
    case "event":
      return new ReadyRow("event", entry.replay?.of ?? null, !entry.replay, () => eventRow(entry));
    case "outcome":
      return new ReadyRow("outcome", entry.eventSeq, false, () => outcomeRow(entry.ts.toISOString(), entry.eventSeq, entry.outcome));
    case "hook":
      return new ReadyRow("hook", entry.eventSeq, false, () => hookRow(entry.ts.toISOString(), entry.eventSeq, entry.event, entry.sessionId, entry.result));
    default:
      return new ReadyRow("replay_run", null, false, () => replayRunRow(entry.ts.toISOString(), entry.run));
  }
}

/**
 * One `append()` call, prepared outside the write lock (see ReadyRow), so that the transaction itself only checks,
 * links and inserts.
 */
export interface PreparedAppend {
  readonly rows: readonly ReadyRow[];
  /** For each entry, the index of its row. */
  readonly entryRows: readonly number[];
  /** Snapshots its events are judged by, appended once per hash before the first event that needs them. */
  readonly snapshots: ReadonlyArray<{ readonly ts: string; readonly snapshot: SnapshotRecord }>;
}

export function prepareAppend(entries: readonly LogEntry[]): PreparedAppend {
  const rows: ReadyRow[] = [];
  const entryRows: number[] = [];
  const snapshots = new Map<string, { ts: string; snapshot: SnapshotRecord }>();
  const ahead = entries.length <= PREPARE_AHEAD_MAX;
  for (const entry of entries) {
    if (entry.kind === "event" && entry.snapshot && !snapshots.has(entry.snapshot.hash))
      snapshots.set(entry.snapshot.hash, { ts: entry.ts.toISOString(), snapshot: entry.snapshot });
    const ready = readyRow(entry);
    if (ahead) ready.make();
    entryRows.push(rows.length);
    rows.push(ready);
  }
  return { rows, entryRows, snapshots: [...snapshots.values()] };
}

/** What one prepared append became in a transaction: the seq of each entry, or why it was refused. */
export type AppendOutcome = { readonly ok: true; readonly seqs: readonly number[] } | { readonly ok: false; readonly error: QhooksError };

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
}

/** What appending needs of an open log (its Connection): the statements of the write path, and what it knows. */
export interface AppendTarget {
  readonly logId: string;
  readonly knownSnapshots: Set<string>;
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
      if (row.kind === "hook") {
        // An async hook's result: after an event of this log, judged or not (the hook may end before the outcome).
        const event = conn.eventOf.get(row.ref) as { kind: string } | undefined;
        if (event?.kind !== "event") return { ok: false, error: new QhooksError("log", `no event ${row.ref} in the log to attach a hook result to`) };
        live.push(false);
        continue;
      }
      if (row.kind !== "outcome") {
        live.push(row.live);
        continue;
      }
      const event = conn.eventOf.get(row.ref) as { kind: string; run_id: string | null; judged: number } | undefined;
      if (event?.kind !== "event") return { ok: false, error: new QhooksError("log", `no event ${row.ref} in the log to attach an outcome to`) };
      if (event.judged) return { ok: false, error: new QhooksError("log", `event ${row.ref} already has its outcome`) };
      live.push(event.run_id === null);
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
  return { outcomes, snapshots: added, records: seq - (head?.seq ?? 0) };
}

/**
 * The Stop-loop guard's count, in the same transaction as each live Stop outcome: a blocked one adds one to the
 * session's streak, any other ends it (deleting a row that is not there writes nothing).
 */
function keepStopStreak(conn: AppendTarget, row: PendingRow, live: boolean): void {
  if (row.event !== "Stop" || !live || row.session_id === null) return;
  if (row.kind !== "outcome" && row.outcome === null) return;
  if (row.blocked === 1) conn.streakUp.run(row.session_id);
  else conn.streakReset.run(row.session_id);
}
