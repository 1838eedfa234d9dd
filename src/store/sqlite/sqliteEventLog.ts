// The SqliteLog class holds the state its write path shares (the connection, the projector thread, the group
// commit, reopening a replaced file). Its jobs live in files of their own (connection, appendRecords, queryEvents,
// querySummaries, eraseAndPrune, logAccess, busy, openErrors...); what is left here sequences them.
import type { Worker } from "node:worker_threads";
import type { Database as Db } from "better-sqlite3";
import { QhooksError } from "../../errors.js";
import {
  appendResult,
  type AppendOptions,
  type AppendResult,
  type AuditLog,
  type EraseResult,
  type EraseSelector,
  type MaintenanceOptions,
  type EventLog,
  type LogEntry,
  type LogMaintenance,
  type LogWarning,
  type PruneResult,
} from "../eventLog.js";
import { eraseLog, erasePreview, pruneLog, prunePreview } from "./eraseAndPrune.js";
import { guarded, guardedRows, upToDate } from "./logAccess.js";
import { wellFormed } from "../journal/hashFormat.js";
import { prepareAppend, type AppendOutcome, type PreparedAppend } from "../journal/prepareAppend.js";
import { closeDatabase, Connection, identityOf, openDatabase, sameFile } from "./connection.js";
import { GroupCommit, type Attempt } from "../journal/groupCommit.js";
import { oneLineText } from "../../text/oneLine.js";
import { LONG_LIVED_CACHE_KIB, Projector, type ProjectorState } from "./projector.js";
import { projectionLag } from "./projections.js";
import { querySettled } from "./querySettled.js";
import { countEvents, queryEvents, readEvents } from "./queryEvents.js";
import { readEvent } from "./readEvent.js";
import type { ReplayRun } from "../../schema/replay.js";
import { queryMatchCounts, querySessions, queryStats } from "./querySummaries.js";
import { verifyChain } from "./verifyChain.js";
import { chainSlice, recordHashes } from "./chainSlice.js";
import { PeriodicHeads } from "./periodicHeads.js";
import { replayRuns } from "./replayRuns.js";
import { APPEND_BUDGET_MS, isBusy, isLocked, READ_SPIN_MS, whileBusy, WRITE_SPIN_MS } from "./busy.js";
import { describeSqliteError } from "./openErrors.js";

export interface SqliteLogOptions {
  /** Audits read an existing log and never create one where a path was mistyped. */
  readonly mustExist?: boolean;
  /**
   * Sign the chain's head each time it passes a multiple of this many records (periodicHeads.ts); 0 or absent: only
   * ship and export sign. What `run`, `record` and the server open the log with.
   */
  readonly signEvery?: number;
}

export type SqliteEventLog = EventLog &
  AuditLog &
  LogMaintenance & {
    readonly path: string;
    readonly db: Db;
    readonly connection: Connection;
    readonly projection: { readonly state: ProjectorState; readonly thread: Worker | null; lag(): number };
  };

/**
 * The event log in one SQLite file: WAL, so readers never block the writer and many processes can append;
 * synchronous=NORMAL, so a crashed process loses nothing it committed and a power cut may lose the last
 * transactions but never corrupts the file. The file is private to its owner (0600, directory 0700).
 */
export function openSqliteLog(path: string, options: SqliteLogOptions = {}): SqliteEventLog {
  return logOn(path, openDatabase(path, options.mustExist ?? false), options.signEvery ?? 0);
}

/** The log over an open, migrated file; reading its id can still meet a damaged page. */
function logOn(path: string, db: Db, signEvery: number): SqliteLog {
  try {
    return new SqliteLog(path, db, signEvery);
  } catch (e) {
    db.close();
    throw new QhooksError("log", `cannot use the event log ${path}: ${describeSqliteError(e)}`, { cause: e });
  }
}

/** What a WAL file is trimmed to when it starts over. */
const WAL_SIZE_LIMIT = 8 * 1024 * 1024;
/** Appends in one transaction at most: a long one holds the lock that other processes wait for. */
const MAX_APPENDS_PER_COMMIT = 256;

class SqliteLog implements EventLog, AuditLog, LogMaintenance {
  private conn: Connection;
  private projector: Projector;
  /** Said once each, with the next append that goes through. */
  private warnings: LogWarning[] = [];
  /** The file was replaced while another process still used the old one: the path cannot be reopened yet. */
  private stale = false;
  /** appendNow() found the path naming another file after its commit: the next batch reopens it first. */
  private moved = false;
  private readonly commits: GroupCommit<PreparedAppend, AppendOutcome>;
  private readonly heads: PeriodicHeads;

  constructor(
    readonly path: string,
    db: Db,
    signEvery: number,
  ) {
    this.conn = new Connection(db, path);
    this.heads = new PeriodicHeads(path, signEvery, (w) => this.warnings.push(w));
    // Locks are waited for by whileBusy(), in steps of a tenth of a millisecond: SQLite's own busy handler sleeps 1,
    // 2, 5, 10 ms... between attempts, so each collision with another process's short transaction cost a
    // millisecond or more (measured: a bus flooding the log ran 3 times slower while another process appended
    // every 5 ms).
    db.pragma("busy_timeout = 0");
    // Checkpoints leave the dispatch path: the projector thread runs them (and a log that never starts one
    // checkpoints when it closes). Once a checkpoint lets the WAL start over, its file is trimmed to 8 MB.
    db.pragma("wal_autocheckpoint = 0");
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
    this.projector = this.newProjector();
    this.commits = new GroupCommit<PreparedAppend, AppendOutcome>({
      commit: (batch) => this.commit(batch),
      isBusy: (e) => isBusy(e) || isLocked(e),
      maxBatch: MAX_APPENDS_PER_COMMIT,
      gaveUp: (e, waited) => {
        if (!isBusy(e)) return new QhooksError("log", `cannot write the event log ${this.path}: ${describeSqliteError(e)}`, { cause: e });
        const how = waited >= 1000 ? ` for ${Math.round(waited / 1000)} s` : "";
        return new QhooksError("log", `the event log ${this.path} stayed locked by another process${how}`, { cause: e });
      },
      failed: (e) =>
        e instanceof QhooksError ? e : new QhooksError("log", `cannot write the event log ${this.path}: ${describeSqliteError(e)}`, { cause: e }),
    });
  }

  /** The open connection (another one after the file was replaced and reopened). */
  get db(): Db {
    return this.conn.db;
  }

  /** The projector thread's state, and the thread itself while it runs: for diagnostics and tests. */
  get projection(): { readonly state: ProjectorState; readonly thread: Worker | null; lag(): number } {
    return { state: this.projector.state, thread: this.projector.thread, lag: () => projectionLag(this.db) };
  }

  private newProjector(): Projector {
    return new Projector(
      this.path,
      this.conn.identity,
      (why) => {
        // The writer checkpoints for itself again, so that the WAL stays bounded; readers catch the projections up.
        if (this.db.open) this.db.pragma("wal_autocheckpoint = 1000");
        this.warnings.push({
          kind: "projector-stopped",
          message: `the thread that keeps the audit indexes of ${this.path} up to date stopped (${oneLineText(why, 80)}); audits catch them up when they read`,
        });
      },
      // A writer that has appended this much is a long-lived one (a server, a bus): its cache stays small.
      () => this.db.pragma(`cache_size = -${LONG_LIVED_CACHE_KIB}`),
    );
  }

  async append(entries: readonly LogEntry[], options: AppendOptions = {}): Promise<AppendResult> {
    if (entries.length === 0) return appendResult([]);
    const outcome = await this.commits.submit(prepareAppend(entries), options.lockWaitMs ?? APPEND_BUDGET_MS);
    if (!outcome.ok) throw outcome.error;
    const warnings = this.warnings;
    this.warnings = [];
    return appendResult(outcome.seqs, warnings);
  }

  /**
   * One append in a transaction of its own, now: what an event judged in one step costs when nothing waits. Not
   * while a batch is queued or the file is being reopened, nor when another process holds the lock (one attempt,
   * no spinning): append() does those. Checked after the commit like a batch; a record that went to a file
   * removed or replaced meanwhile is appended again by append(), after the path is reopened.
   */
  appendNow(entries: readonly LogEntry[], _options: AppendOptions = {}): AppendResult | null {
    if (entries.length === 0) return appendResult([]);
    const conn = this.conn;
    if (!conn.db.open || this.stale || this.moved || !this.commits.idle) return null;
    let done;
    try {
      const prepared = prepareAppend(entries);
      done = this.projector.exclusive(() => conn.appendBatch.immediate([prepared]));
    } catch {
      return null;
    }
    if (!sameFile(identityOf(this.path), conn.identity)) {
      this.moved = true;
      return null;
    }
    for (const hash of done.snapshots) conn.knownSnapshots.add(hash);
    this.projector.committed(done.records);
    this.heads.committed(conn.logId, done.head);
    const outcome = done.outcomes[0]!;
    if (!outcome.ok) return null;
    const warnings = this.warnings;
    this.warnings = [];
    return appendResult(outcome.seqs, warnings);
  }

  /**
   * One transaction for a batch of appends, in the file now at the log's path. Checked after the commit, so that no
   * record can go to a file removed or replaced just before it: if the path names another file by then, the log is
   * reopened there and the batch appended again (an outcome whose event stayed in the old file is refused, and its
   * caller says so).
   */
  private async commit(batch: readonly PreparedAppend[]): Promise<Attempt<AppendOutcome>> {
    if (!this.conn.db.open || this.stale || this.moved) {
      this.moved = false;
      await this.reopen();
    }
    for (let attempt = 1; ; attempt++) {
      const conn = this.conn;
      const done = this.projector.exclusive(() => whileBusy(() => conn.appendBatch.immediate(batch), WRITE_SPIN_MS));
      if (sameFile(identityOf(this.path), conn.identity)) {
        for (const hash of done.snapshots) conn.knownSnapshots.add(hash);
        this.projector.committed(done.records);
        this.heads.committed(conn.logId, done.head);
        return { ok: true, results: done.outcomes };
      }
      if (attempt === 3) throw new QhooksError("log", `the event log file ${this.path} keeps being removed or replaced`);
      await this.reopen();
    }
  }

  /**
   * The file at the log's path is no longer the one open (removed, or replaced by another file). SQLite keeps the
   * old file's write-ahead log at the path (it does not checkpoint a moved file when it closes it), and whatever
   * opens the path next would read those pages as its own: so the old WAL is emptied into the old file first
   * (TRUNCATE checkpoint, with this process's connections to it closed), and only then is the path opened again,
   * as a new log if nothing is there. While another process still uses the old file, its WAL cannot be emptied:
   * nothing is reopened, and every append says why.
   */
  private async reopen(): Promise<void> {
    await this.projector.stop();
    const old = this.conn.db;
    if (old.open) {
      let emptied = false;
      try {
        const [result] = old.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
        emptied = result?.busy === 0;
      } catch {
        emptied = false;
      }
      // Kept open until it can be emptied: once the other process is gone, the next append empties it and goes on.
      this.stale = !emptied;
      if (this.stale) {
        throw new QhooksError(
          "log",
          `the event log file ${this.path} was removed or replaced while in use, and another process still uses the old one: not reopening the path until it is done (the write-ahead file there still belongs to the old log)`,
        );
      }
      old.close();
    }
    const fresh = openSqliteLog(this.path);
    this.conn = fresh.connection;
    this.projector = this.newProjector();
    this.warnings.push({
      kind: "reopened",
      message: `the event log file ${this.path} was removed or replaced while in use; opened it again (earlier records stay in the old file)`,
    });
  }

  /** For reopen(): the connection of a log opened only to hand it over. */
  get connection(): Connection {
    return this.conn;
  }

  async stopBlockStreak(sessionId: string): Promise<number> {
    const row = whileBusy(() => this.conn.streakOf.get(wellFormed(sessionId)), READ_SPIN_MS) as { streak: number } | undefined;
    return row?.streak ?? 0;
  }

  event: AuditLog["event"] = async (seq) => this.caughtUp(() => readEvent(this.db, seq));
  events: AuditLog["events"] = (filter, limit) =>
    guardedRows(
      this,
      this.afterCatchUp(() => queryEvents(this.db, filter, limit)),
    );
  read: AuditLog["read"] = (filter, from) =>
    guardedRows(
      this,
      this.afterCatchUp(() => readEvents(this.db, filter, from?.after ?? 0)),
    );
  settledAfter: AuditLog["settledAfter"] = async (filter, after, limit) => this.caughtUp(() => querySettled(this.db, filter, after, limit));
  count: AuditLog["count"] = async (filter) => this.caughtUp(() => countEvents(this.db, filter));
  sessions: AuditLog["sessions"] = async (filter) => this.caughtUp(() => querySessions(this.db, filter));
  stats: AuditLog["stats"] = async (filter, names) => this.caughtUp(() => queryStats(this.db, filter, names));
  matchCounts: AuditLog["matchCounts"] = async (filter) => this.caughtUp(() => queryMatchCounts(this.db, filter));
  verify: AuditLog["verify"] = async () => guarded(this, () => verifyChain(this.db));
  chainSlice: NonNullable<AuditLog["chainSlice"]> = async (selection) => this.caughtUp(() => chainSlice(this.db, selection));
  recordHashes: NonNullable<AuditLog["recordHashes"]> = async (seqs) => guarded(this, () => recordHashes(this.db, seqs));

  async erase(selector: EraseSelector, why: string | null = null, options: MaintenanceOptions = {}): Promise<EraseResult> {
    return options.dryRun ? erasePreview(this, selector) : eraseLog(this, selector, why);
  }

  async prune(before: Date, options: MaintenanceOptions = {}): Promise<PruneResult> {
    return options.dryRun ? prunePreview(this, before) : pruneLog(this, before);
  }

  /** For logAccess.ts: runs `work` while the projector thread keeps off the write lock. */
  exclusive<T>(work: () => T): T {
    return this.projector.exclusive(work);
  }

  private async caughtUp<T>(query: () => T): Promise<T> {
    await upToDate(this);
    return guarded(this, query);
  }

  private async *afterCatchUp<T>(rows: () => AsyncIterable<T>): AsyncGenerator<T> {
    await upToDate(this);
    yield* rows();
  }

  async replayRuns(): Promise<ReplayRun[]> {
    // Imported here: building the read side's schemas is start-up time that every `qhooks run` would pay.
    const { ReplayRunSchema } = await import("../../schema/replay.js");
    return guarded(this, () => replayRuns(this.db, ReplayRunSchema));
  }

  async settle(): Promise<readonly LogWarning[]> {
    await this.commits.settled();
    await this.heads.settled();
    const warnings = this.warnings;
    this.warnings = [];
    return warnings;
  }

  async close(): Promise<void> {
    await this.commits.settled();
    await this.heads.settled();
    await this.projector.stop();
    closeDatabase(this.conn, this.path);
  }
}
