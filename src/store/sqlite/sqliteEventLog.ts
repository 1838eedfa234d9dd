import { accessSync, constants } from "node:fs";
import { dirname } from "node:path";
import Database, { type Database as Db, type Statement } from "better-sqlite3";
import { QhooksError, messageOf } from "../../errors.js";
import type { AppendOptions, AuditLog, EventLog, LogEntry } from "../eventLog.js";
import { eventRow, hashRow, JOURNAL_COLUMNS, journalValues, outcomeRows, placedRow, replayRunRow, snapshotRow, type PendingRow } from "./journalRow.js";
import { makeLogPrivate, prepareLogFile } from "./logFile.js";
import { migrate } from "./migrations.js";
import { betterSqliteAddon } from "./nativeBinding.js";
import { oneLineText } from "../../text/oneLine.js";
import { countEvents, queryEvents, readEvents } from "./queryEvents.js";
import type { ReplayRun } from "../../schema/replay.js";
import { querySessions, queryStats } from "./querySummaries.js";
import { verifyChain } from "./verifyChain.js";

/** How long one attempt waits for another process's write lock, blocking: short, so the event loop keeps going. */
const BUSY_TIMEOUT_MS = 20;
/** How long an append keeps retrying (asynchronously) before it gives up and the caller is told. */
const APPEND_BUDGET_MS = 5_000;
/**
 * How long opening may wait for the write lock, blocking: only creating the file, switching it to WAL or migrating
 * it takes that lock, once per file and version, when several processes that found no log may meet here.
 */
const SETUP_BUSY_TIMEOUT_MS = 5_000;

export interface SqliteLogOptions {
  /** Audits read an existing log and never create one where a path was mistyped. */
  readonly mustExist?: boolean;
}

export type SqliteEventLog = EventLog & AuditLog & { readonly path: string; readonly db: Db };

/**
 * The event log in one SQLite file: WAL, so readers never block the writer and many processes can append;
 * synchronous=NORMAL, so a crashed process loses nothing it committed and a power cut may lose the last
 * transactions but never corrupts the file. The file is private to its owner (0600, directory 0700).
 */
export function openSqliteLog(path: string, options: SqliteLogOptions = {}): SqliteEventLog {
  let db: Db;
  try {
    prepareLogFile(path, options.mustExist ?? false);
    // The typings say string; better-sqlite3 also takes the loaded addon object (its docs, "nativeBinding").
    const nativeBinding = betterSqliteAddon() as string | undefined;
    db = new Database(path, { timeout: BUSY_TIMEOUT_MS, fileMustExist: options.mustExist ?? false, nativeBinding });
  } catch (e) {
    if (e instanceof QhooksError) throw e;
    throw new QhooksError("log", `cannot open the event log ${path}: ${describeSqliteError(e)}`, { cause: e });
  }
  try {
    // Opening races with other processes: the last connection to close checkpoints the WAL under an exclusive
    // lock, and a connection that starts reading at that moment gets SQLITE_BUSY. Setup, which happens once per
    // open, may wait for that as long as an append would; afterwards the short blocking slices apply again.
    db.pragma(`busy_timeout = ${SETUP_BUSY_TIMEOUT_MS}`);
    switchToWal(db);
    db.pragma("synchronous = NORMAL");
    migrate(db);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!options.mustExist) makeLogPrivate(path);
  } catch (e) {
    db.close();
    if (e instanceof QhooksError) throw e;
    throw new QhooksError("log", `cannot use the event log ${path}: ${readOnlyDirectory(path) ?? describeSqliteError(e)}`, { cause: e });
  }
  return new SqliteLog(path, db);
}

class SqliteLog implements EventLog, AuditLog {
  private readonly knownSnapshots = new Set<string>();
  private readonly statements = new Map<string, Statement>();
  private readonly appendBatch: ((rows: readonly PendingRow[], snapshots: readonly PendingRow[]) => number[]) & { immediate: (rows: readonly PendingRow[], snapshots: readonly PendingRow[]) => number[] };

  constructor(
    readonly path: string,
    readonly db: Db,
  ) {
    const last = this.statement("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1");
    const insert = this.statement(`INSERT INTO journal (${JOURNAL_COLUMNS.join(", ")}) VALUES (${JOURNAL_COLUMNS.map(() => "?").join(", ")})`);
    const snapshotKnown = this.statement("SELECT 1 FROM journal WHERE kind = 'snapshot' AND config_hash = ? LIMIT 1");
    // One transaction: read the chain's head, then place every row after it. Under the write lock no other
    // process can append in between, so concurrent appenders always leave one valid chain.
    this.appendBatch = db.transaction((rows: readonly PendingRow[], snapshots: readonly PendingRow[]) => {
      const head = last.get() as { seq: number; hash: string } | undefined;
      let seq = head?.seq ?? 0;
      let hash = head?.hash ?? "";
      const seqs: number[] = [];
      const place = (pending: PendingRow) => {
        const ref = typeof pending.ref === "object" && pending.ref !== null ? seqs[pending.ref.batchIndex]! : pending.ref;
        const row = placedRow(pending, ++seq, ref);
        hash = row.hash = hashRow(hash, row);
        insert.run(journalValues(row));
        return seq;
      };
      for (const s of snapshots) if (!snapshotKnown.get(s.config_hash)) place(s);
      for (const r of rows) seqs.push(place(r));
      return seqs;
    }) as unknown as SqliteLog["appendBatch"];
  }

  private statement(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  async append(entries: readonly LogEntry[], options: AppendOptions = {}): Promise<ReadonlyArray<number | null>> {
    // Each entry maps to its first row; outcome and hook rows follow it.
    const rows: PendingRow[] = [];
    const firstRowOf: number[] = [];
    const snapshots: PendingRow[] = [];
    for (const entry of entries) {
      firstRowOf.push(rows.length);
      if (entry.kind === "event") {
        if (entry.snapshot && !this.knownSnapshots.has(entry.snapshot.hash)) snapshots.push(snapshotRow(entry.ts.toISOString(), entry.snapshot));
        const row = eventRow(entry);
        rows.push(row);
        if (entry.outcome) {
          rows.push(...outcomeRows(new Date().toISOString(), { batchIndex: rows.length - 1 }, entry.outcome, { matchValue: row.match_value, projectDir: row.project_dir, source: row.source, runId: row.run_id }));
        }
      } else if (entry.kind === "replay-run") {
        rows.push(replayRunRow(entry.ts.toISOString(), entry.run));
      } else {
        const context = this.statement("SELECT match_value, project_dir, source, run_id FROM journal WHERE seq = ? AND kind = 'event'").get(entry.eventSeq) as
          | { match_value: string | null; project_dir: string | null; source: string | null; run_id: string | null }
          | undefined;
        if (!context) throw new QhooksError("log", `no event ${entry.eventSeq} in the log to attach an outcome to`);
        rows.push(...outcomeRows(entry.ts.toISOString(), entry.eventSeq, entry.outcome, { matchValue: context.match_value, projectDir: context.project_dir, source: context.source, runId: context.run_id }));
      }
    }
    const seqs = await this.withRetry(() => this.appendBatch.immediate(rows, snapshots), options.lockWaitMs ?? APPEND_BUDGET_MS);
    for (const s of snapshots) this.knownSnapshots.add(s.config_hash!);
    return firstRowOf.map((i) => seqs[i] ?? null);
  }

  /** better-sqlite3 blocks while it waits for a lock; wait in short blocking slices, asynchronously in between. */
  private async withRetry<T>(attempt: () => T, budgetMs: number): Promise<T> {
    const start = Date.now();
    for (let delay = 2; ; delay = Math.min(delay * 2, 100)) {
      try {
        return attempt();
      } catch (e) {
        const busy = isBusy(e);
        // The attempt is a whole transaction: after any lock it can simply run again.
        if ((busy || isLocked(e)) && Date.now() - start < budgetMs) {
          await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
          continue;
        }
        if (busy) {
          const waited = Date.now() - start;
          const how = waited >= 1000 ? ` for ${Math.round(waited / 1000)} s` : "";
          throw new QhooksError("log", `the event log ${this.path} stayed locked by another process${how}`, { cause: e });
        }
        throw new QhooksError("log", `cannot write the event log ${this.path}: ${describeSqliteError(e)}`, { cause: e });
      }
    }
  }

  async stopBlockStreak(sessionId: string): Promise<number> {
    const rows = this.statement(
      `SELECT blocked FROM journal WHERE kind = 'outcome' AND run_id IS NULL AND session_id = ? AND event = 'Stop'
       ORDER BY seq DESC LIMIT 1000`,
    ).iterate(sessionId) as IterableIterator<{ blocked: number }>;
    let streak = 0;
    for (const row of rows) {
      if (row.blocked !== 1) break;
      streak++;
    }
    return streak;
  }

  events: AuditLog["events"] = (filter, limit) => this.guardedRows(queryEvents(this.db, filter, limit));
  read: AuditLog["read"] = (filter) => this.guardedRows(readEvents(this.db, filter));
  count: AuditLog["count"] = async (filter) => this.guarded(() => countEvents(this.db, filter));
  sessions: AuditLog["sessions"] = async (filter) => this.guarded(() => querySessions(this.db, filter));
  stats: AuditLog["stats"] = async (filter) => this.guarded(() => queryStats(this.db, filter));
  verify: AuditLog["verify"] = async () => this.guarded(() => verifyChain(this.db));

  async replayRuns(): Promise<ReplayRun[]> {
    // Imported here: building the read side's schemas is start-up time that every `qhooks run` would pay.
    const { ReplayRunSchema } = await import("../../schema/replay.js");
    return this.guarded(() => {
      // A run is appended when it starts and again when it ends; the later record says more.
      const runs = new Map<string, ReplayRun>();
      for (const row of this.statement("SELECT run_id, body FROM journal WHERE kind = 'replay_run' ORDER BY seq").iterate() as IterableIterator<{ run_id: string; body: string }>) {
        const run = ReplayRunSchema.safeParse(JSON.parse(row.body));
        if (run.success) runs.set(row.run_id, run.data);
      }
      return [...runs.values()].reverse();
    });
  }

  /** A file that opened but cannot be read (a damaged page) is the user's problem to see, not an internal error. */
  private guarded<T>(query: () => T): T {
    try {
      return query();
    } catch (e) {
      throw this.readError(e);
    }
  }

  private async *guardedRows<T>(rows: AsyncIterable<T>): AsyncGenerator<T> {
    try {
      yield* rows;
    } catch (e) {
      throw this.readError(e);
    }
  }

  private readError(e: unknown): unknown {
    // A record whose JSON body was damaged in the file (SQLite itself saw nothing wrong with the page).
    if (e instanceof SyntaxError) {
      return new QhooksError("log", `cannot read the event log ${this.path}: a record is damaged (${oneLineText(e.message, 80)}); qhooks verify names it`, { cause: e });
    }
    if (e instanceof QhooksError || typeof (e as { code?: unknown }).code !== "string" || !String((e as { code: string }).code).startsWith("SQLITE_")) return e;
    return new QhooksError("log", `cannot read the event log ${this.path}: ${describeSqliteError(e)}`, { cause: e });
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

// better-sqlite3 reports extended codes: SQLITE_BUSY_RECOVERY (another process is rebuilding the WAL index, as when
// several open a new log at once), SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE. Each is a lock to wait for.
const isBusy = (e: unknown) => /^SQLITE_BUSY(_|$)/.test((e as { code?: string }).code ?? "");
const isLocked = (e: unknown) => /^SQLITE_LOCKED(_|$)/.test((e as { code?: string }).code ?? "");

/**
 * Puts a new file in WAL mode. The switch needs the file to itself, and SQLite answers it with SQLITE_BUSY at once,
 * without its busy handler, while another process has the file open: as when several agents create the log at the
 * same moment (measured: 1 open in about 250 failed so). Retried, blocking (opening is synchronous), within the
 * setup budget; once one process has switched, the others find WAL and have nothing to do.
 */
function switchToWal(db: Db): void {
  const deadline = Date.now() + SETUP_BUSY_TIMEOUT_MS;
  for (let delay = 1; ; delay = Math.min(delay * 2, 50)) {
    try {
      if (db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL");
      return;
    } catch (e) {
      if (!isBusy(e) || Date.now() > deadline) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay + Math.random() * delay);
    }
  }
}

/**
 * SQLite writes next to a WAL log even to read it (its -shm file): on a read-only file system it can only say that
 * it cannot open the file. Say why instead.
 */
function readOnlyDirectory(path: string): string | null {
  try {
    accessSync(dirname(path), constants.W_OK);
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EROFS" ? "the file system is read-only (SQLite needs to write next to the log, even to read it)" : null;
  }
}

export function describeSqliteError(e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") return "the file is not a readable SQLite database (corrupt or not a log)";
  if (code === "SQLITE_FULL") return "the disk is full";
  if (code?.startsWith("SQLITE_READONLY")) return "the file or its directory is read-only";
  // EFBIG (a file size limit) and ENOSPC while growing the WAL or its index come back as I/O errors.
  if (code === "SQLITE_IOERR_WRITE" || code === "SQLITE_IOERR_SHMSIZE" || code === "SQLITE_IOERR_TRUNCATE" || code === "SQLITE_IOERR_FSYNC") {
    return "writing the file failed (the disk is full, a file size limit was reached, or the device failed)";
  }
  if (code?.startsWith("SQLITE_IOERR")) return `an I/O error on the file (${code})`;
  if (code === "SQLITE_CANTOPEN") return "the file cannot be opened";
  // mkdir -p reports a file where a directory should be as EEXIST.
  if (code === "ENOTDIR" || code === "EEXIST") return "a part of the path is not a directory";
  if (code === "EISDIR") return "the path is a directory, not a file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EROFS") return "the file system is read-only";
  if (code === "ENOSPC") return "the disk is full";
  return messageOf(e);
}
