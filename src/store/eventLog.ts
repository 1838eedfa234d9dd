// Types only: a dispatch that logs loads this module, and none of the log's read-side schemas.
import type { EventName } from "../schema/events.js";
import type { EventDetail, SnapshotSource } from "../schema/eventDetail.js";
import type { LogFilter } from "../schema/logFilter.js";
import type { LogDecision, LogRecord, MatchCount, SessionRow, Stats, VerifyResult } from "../schema/logRecord.js";
import type { HookResult, Outcome } from "../schema/outcome.js";
import type { ReplayRun } from "../schema/replay.js";
import type { JournalRow } from "./journal/record.js";
import type { PartDigests } from "./journal/hashFormat.js";
import type { SignedHeadLine } from "./signedHeads.js";

export type { EventDetail, LogFilter };

/**
 * The event log as the pipeline sees it: a narrow port, so that another backend can sit behind it. Appends are
 * asynchronous (a backend may wait for a lock without freezing the caller); every method resolves or rejects,
 * and the pipeline turns a rejection into a warning, never into a lost decision.
 */
export interface EventLog {
  /**
   * Appends entries in one transaction (which appends of concurrent callers may share); resolves once they are
   * committed, to the seq of each entry (null when nothing is kept), with what the caller should hear about the log.
   */
  append(entries: readonly LogEntry[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * The same append, committed before it returns, for a backend that can write without waiting: an event judged in
   * one step then costs no turn of the event loop. Null when it cannot be done at once (the write lock is held
   * elsewhere, the file is being reopened, the write failed): nothing was kept, and the caller uses append(), which
   * waits, retries and says why. Absent: always append().
   */
  appendNow?(entries: readonly LogEntry[], options?: AppendOptions): AppendResult | null;
  /**
   * How many judged live Stop events of the session, newest first, were blocked in a row: the Stop-loop guard's
   * input. Null when the log cannot tell (no log), which turns the guard off.
   */
  stopBlockStreak(sessionId: string): Promise<number | null>;
  /**
   * Where the records of the event appended under this seq are when not in this log itself (a fallback file, for
   * an event the central log could not take): what a detached async hook appends its result to. Absent or null:
   * here.
   */
  placeOf?(seq: number | null): string | null;
  /**
   * True for a log that keeps nothing (`--no-log`): what would be written is not even built (nor redacted), and an
   * outcome has no record to wait for. Said by the log, so that a wrapper can say it too.
   */
  readonly keepsNothing?: boolean;
  /**
   * Waits for the work appends left running after they returned (a chain head being signed) and hands over the
   * warnings no append has said yet: a failure of the last append's follow-up has no next append to ride on, so a
   * process calls this before it answers or exits, and says what it gets. Absent: nothing is ever left over.
   */
  settle?(): Promise<readonly LogWarning[]>;
  close(): Promise<void>;
}

export interface AppendOptions {
  /**
   * How long to keep trying while another process holds the write lock, in milliseconds; the backend's own budget
   * when absent. 0 means one attempt: for an event that already waited its budget once (its arrival), so that one
   * event never waits twice.
   */
  readonly lockWaitMs?: number;
}

/**
 * The seq of each appended entry, in order (so `const [seq] = await log.append([entry])` reads the first), and
 * warnings about the log itself that came up while appending: each is said once, with the append it came with.
 */
export type AppendResult = ReadonlyArray<number | null> & { readonly warnings: readonly LogWarning[] };

import type { LogWarning } from "../schema/logWarning.js";
import type { Dialect } from "../schema/dialect.js";
import type { LoadAttestation } from "../schema/doctor.js";

export type { LogWarning } from "../schema/logWarning.js";

/** An append result with no warnings. */
export const appendResult = (seqs: ReadonlyArray<number | null>, warnings: readonly LogWarning[] = []): AppendResult => Object.assign([...seqs], { warnings });

/** A configuration snapshot as the log keeps it: the hooks sections only, with the warnings they caused. */
export interface SnapshotRecord {
  readonly hash: string;
  readonly document: unknown;
  readonly warnings: readonly string[];
  /**
   * Every settings file consulted, loaded or not, in priority order (lowest first), with a plugin's folders: what
   * `qhooks explain` needs to tell which file a hook came from and what ran. Kept in the record, not in the hash (a
   * snapshot written before this field existed has none).
   */
  readonly sources?: readonly SnapshotSource[];
  /** The host whose settings they are; absent for the default host (qoder), and from snapshots logged before it was kept. */
  readonly dialect?: Dialect;
  /**
   * The load attestation of the configuration (configured, loaded, each skipped entry with why), as its settings
   * make it: trust's verdicts are in each event's outcome. Kept in the record, not in the hash.
   */
  readonly attestation?: LoadAttestation;
}

export type { SnapshotSource };

/** Where an event came from. */
export type EventSource = "dispatch" | "record" | "replay";

/** An event, appended when it arrives: before its hooks run, so that a crash still leaves evidence. */
export interface EventEntry {
  readonly kind: "event";
  readonly ts: Date;
  readonly source: EventSource;
  readonly event: EventName | null;
  readonly sessionId: string | null;
  readonly matchValue: string | null;
  readonly projectDir: string;
  /** The payload as hooks received it (or, for a rejection, as it arrived). */
  readonly payload: string;
  /** The configuration it is judged by; stored once per hash. Null for recorded and rejected events. */
  readonly snapshot: SnapshotRecord | null;
  /** Why the payload was rejected; null for a valid one. */
  readonly rejection: string | null;
  /** For replays: the run it belongs to and the live event it re-judges. */
  readonly replay: { readonly runId: string; readonly of: number } | null;
  /** Set when the event is judged in one step (no hook matched): arrival and outcome in one transaction. */
  readonly outcome: Outcome | null;
  /** The host that sent an event no settings judged (`qhooks record`); a judged event's host is its snapshot's. */
  readonly host?: Dialect;
}

/** The outcome of an event appended earlier, with every hook result. */
export interface OutcomeEntry {
  readonly kind: "outcome";
  readonly ts: Date;
  readonly eventSeq: number;
  readonly outcome: Outcome;
}

/**
 * The result of an `async: true` hook of an event appended earlier, logged when the hook ends (never part of the
 * event's outcome, which may be logged before or after it).
 */
export interface HookEntry {
  readonly kind: "hook";
  readonly ts: Date;
  readonly eventSeq: number;
  /** The event's name and session, as on its record. */
  readonly event: EventName;
  readonly sessionId: string;
  readonly result: HookResult;
}

/** The start or the end of a replay run; its events are appended with `replay` set, apart from live history. */
export interface ReplayRunEntry {
  readonly kind: "replay-run";
  readonly ts: Date;
  readonly run: ReplayRun;
}

export type LogEntry = EventEntry | OutcomeEntry | HookEntry | ReplayRunEntry;

/** The log that keeps nothing (`--no-log`, `db: false`). */
export const nullEventLog: EventLog = {
  keepsNothing: true,
  append: async (entries) => appendResult(entries.map(() => null)),
  appendNow: (entries) => appendResult(entries.map(() => null)),
  stopBlockStreak: async () => null,
  close: async () => undefined,
};

/**
 * An event as replay reads it: what was decided then, and the payload exactly as the hooks received it. Lighter
 * than a LogRecord (no outcome body, no parsed payload): a replay reads every matching event of the log.
 */
export interface StoredEvent {
  readonly seq: number;
  readonly event: EventName | null;
  readonly sessionId: string | null;
  readonly matchValue: string | null;
  readonly projectDir: string;
  readonly decision: LogDecision;
  readonly blocked: boolean;
  readonly reason: string | null;
  /** The names of the hooks that ran, in selection order. */
  readonly hooks: readonly string[];
  readonly payload: string;
}

/** Where `read` starts: after an event already handled (what a continuous export resumes from). */
export interface ReadFrom {
  /** Only events with a greater seq. */
  readonly after?: number;
}

/** A page of `settledAfter`. */
export interface SettledPage {
  readonly records: readonly LogRecord[];
  readonly through: number;
}

/** The read side of the log: audits (newest first) and the integrity check. */
export interface AuditLog {
  /**
   * One event in full: its payload, outcome with every hook result and output, the configuration it was judged by,
   * and its records' place in the hash chain. Null when no event has that seq (another kind of record, or none).
   */
  event(seq: number): Promise<EventDetail | null>;
  /** Matching events, newest first, at most `limit`, streamed. */
  events(filter: LogFilter, limit: number): AsyncIterable<LogRecord>;
  /** Every matching event, oldest first, read page by page: what a replay re-judges. */
  read(filter: LogFilter, from?: ReadFrom): AsyncIterable<StoredEvent>;
  /**
   * Matching events settled (judged, recorded or rejected) in a record after `after`, in the order they settled, at
   * most `limit`: what `qhooks log --follow` polls. `through` is where the next call starts (the last record this
   * read saw, or the last one given when the limit cut it). An event still unfinished is not given until its outcome
   * comes.
   */
  settledAfter(filter: LogFilter, after: number, limit: number): Promise<SettledPage>;
  /** How many events `read(filter)` will give. */
  count(filter: LogFilter): Promise<number>;
  replayRuns(): Promise<ReplayRun[]>;
  sessions(filter: Pick<LogFilter, "since" | "until" | "machine" | "user" | "writer" | "host">): Promise<SessionRow[]>;
  /**
   * `names`: a stored hook name to the name its runs are counted under (a hook logged under its old default name,
   * its whole command, and under its short name now is one hook); names not in it are kept.
   */
  stats(filter: Pick<LogFilter, "since" | "until" | "machine" | "user" | "writer" | "host">, names?: ReadonlyMap<string, string>): Promise<Stats>;
  /** Live events by event and match value: which values each event's matchers were tested against. */
  matchCounts(filter: Pick<LogFilter, "since" | "until" | "machine" | "user" | "writer" | "host">): Promise<MatchCount[]>;
  verify(): Promise<VerifyResult>;
  /**
   * What evidence of the selected events is made of (src/export/evidence.ts): null when nothing is selected. On the
   * central database, one writer's chain up to the newest head its writer signed (`signed`).
   */
  chainSlice?(selection: EvidenceSelection): Promise<ChainSlice | null>;
  /** The log's id and the hashes of the records with these seqs (those that exist): what signed heads are checked against. */
  recordHashes?(seqs: readonly number[]): Promise<{ readonly logId: string; readonly hashes: ReadonlyMap<number, string> }>;
  close(): Promise<void>;
}

/** The events evidence is taken of: those of these sessions (all when empty), from this time on (all when null). */
export interface EvidenceSelection {
  readonly sessions: readonly string[];
  readonly since: Date | null;
  /** On the central database: the writer whose chain it is (a log's id); needed when several hold matching events. */
  readonly writer?: string | null;
}

/** A run of the chain, from the first selected record to the log's head, read at one moment. */
export interface ChainSlice {
  readonly logId: string;
  /** The record before the first one (or the anchor a prune left; seq 0 and hash "" at the log's start). */
  readonly from: { readonly seq: number; readonly hash: string };
  /** Every record from the first selected one to the head, in order. */
  readonly rows: readonly JournalRow[];
  /** The seqs of the selected records: the events, their outcome and hook records, the erasure records about them. */
  readonly selected: ReadonlySet<number>;
  /** Erased records (of the rows): the digests their parts had, from their erasure records. */
  readonly erasures: ReadonlyMap<number, PartDigests>;
  /**
   * Where the log cannot sign (the central database holds no writer's key): the head its writer signed that the rows
   * end at, and the earlier heads it signed at or after the selected records. Absent where the log signs its own head.
   */
  readonly signed?: { readonly head: SignedHeadLine; readonly earlier: readonly SignedHeadLine[] };
  /**
   * On the central database: the erasure records of selected records erased there rather than in their writer's log,
   * from the chain of the process that erased them (`writer`), which no key signs. Absent or empty elsewhere.
   */
  readonly erasedHere?: readonly { readonly writer: string; readonly record: JournalRow }[];
}

/** How erase and prune run: `dryRun` says what they would remove and changes nothing. */
export interface MaintenanceOptions {
  readonly dryRun?: boolean;
}

/** Which events `erase` removes the content of. */
export type EraseSelector =
  /** One event (its outcome too). */
  | { readonly seq: number }
  /** Every event of a session, live and replayed. */
  | { readonly sessionId: string }
  /** Every event whose payload, reason or outcome holds this text (case-sensitive, as written: not a regex). */
  | { readonly pattern: string };

export interface EraseResult {
  /** Events whose content was erased now (those erased before are not counted again). */
  readonly events: number;
  /** Records rewritten (an event's own and its outcome's). */
  readonly records: number;
  /** Where the removed text may still be, as far as the backend knows; empty when it is gone from the log's files. */
  readonly leftovers: readonly Leftover[];
}

/**
 * A place that may still hold text that erase or prune removed, which qhooks could not clean: the command says so
 * (the user asked for those bytes to be gone).
 */
export type Leftover =
  /** SQLite: the file could not be rewritten (its free pages may still hold the text); erase or prune again to retry. */
  | { readonly kind: "file-not-rewritten"; readonly file: string; readonly why: string }
  /**
   * SQLite: another connection was still reading the pages from before, so the write-ahead file could not be
   * emptied: the old pages stay in it (and in the log file) until the last connection to the log closes.
   */
  | { readonly kind: "wal-in-use"; readonly file: string }
  /**
   * PostgreSQL: the old row versions stay in the table's pages until VACUUM reuses their space, and in the server's
   * write-ahead log, archives, replicas and backups; a client cannot remove them.
   */
  | { readonly kind: "server-copies" };

export interface PruneResult {
  /** Records deleted. */
  readonly records: number;
  /** Of which events. */
  readonly events: number;
  /** The first record kept, which `verify` starts from; null when the log holds nothing older than asked. */
  readonly from: number | null;
  /** The log's size before and after, in bytes, where the backend can tell. */
  readonly bytesBefore: number | null;
  readonly bytesAfter: number | null;
  /** As for erase: where the deleted records' text may still be. */
  readonly leftovers: readonly Leftover[];
}

/**
 * Removing what the log holds while its chain stays verifiable: erasure (content of chosen events, a secret found
 * later or a person's data) and retention (every record older than a date). Each says what it did in a chained
 * record of its own; `verify` then reports erased records as erased and checks the chain from the oldest record kept.
 */
export interface LogMaintenance {
  /**
   * Replaces the free-text parts of the selected events' records (payload, reason, outcome text and hook output)
   * with `[ERASED]` (a payload with an object naming the erasure, schema/erasedPayload.ts), keeping their small
   * columns (time, event, session, decision...), and appends one erasure record per record rewritten, holding the
   * digests its parts had. With `dryRun`, only counts what it would erase: the log is not changed.
   */
  erase(selector: EraseSelector, why?: string | null, options?: MaintenanceOptions): Promise<EraseResult>;
  /**
   * Deletes the records older than `before` (an event and its outcome go together), keeps the hash of the last one
   * deleted as the anchor the chain starts from, appends a prune record that says so, and gives the space back.
   * With `dryRun`, only says what it would delete (no sizes): the log is not changed.
   */
  prune(before: Date, options?: MaintenanceOptions): Promise<PruneResult>;
}
