import { statSync } from "node:fs";
import Database, { type Database as Db, type Statement } from "better-sqlite3";
import { QhooksError } from "../../errors.js";
import { RecentSet } from "../../core/recentMap.js";
import { SNAPSHOTS_KNOWN } from "../journal/appendRules.js";
import { JOURNAL_COLUMNS } from "../journal/record.js";
import type { PreparedAppend } from "../journal/prepareAppend.js";
import { appendRecords, type AppendedRecords } from "./appendRecords.js";
import { catchUpStep, projectionLag } from "./projections.js";
import { makeLogPrivate, prepareLogFile } from "./logFile.js";
import { migrate } from "./migrations.js";
import { betterSqliteAddon } from "./nativeBinding.js";
import { describeSqliteError, readOnlyDirectory, switchToWal } from "./openErrors.js";

/** How long one attempt waits for another process's write lock, blocking: short, so the event loop keeps going. */
const BUSY_TIMEOUT_MS = 20;
/**
 * How long opening may wait for the write lock, blocking: only creating the file, switching it to WAL or migrating
 * it takes that lock, once per file and version, when several processes that found no log may meet here.
 */
const SETUP_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens the log file at `path` (made, private, when it may be created), in WAL mode with synchronous=NORMAL, its
 * schema brought up to date.
 */
export function openDatabase(path: string, mustExist: boolean): Db {
  let db: Db;
  try {
    prepareLogFile(path, mustExist);
    // The typings say string; better-sqlite3 also takes the loaded addon object (its docs, "nativeBinding").
    const nativeBinding = betterSqliteAddon() as string | undefined;
    db = new Database(path, { timeout: BUSY_TIMEOUT_MS, fileMustExist: mustExist, nativeBinding });
  } catch (e) {
    if (e instanceof QhooksError) throw e;
    throw new QhooksError("log", `cannot open the event log ${path}: ${describeSqliteError(e)}`, { cause: e });
  }
  try {
    // Opening races with other processes: the last connection to close checkpoints the WAL under an exclusive
    // lock, and a connection that starts reading at that moment gets SQLITE_BUSY. Setup, which happens once per
    // open, may wait for that as long as an append would; afterwards the short blocking slices apply again.
    db.pragma(`busy_timeout = ${SETUP_BUSY_TIMEOUT_MS}`);
    switchToWal(db, SETUP_BUSY_TIMEOUT_MS);
    db.pragma("synchronous = NORMAL");
    migrate(db);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!mustExist) makeLogPrivate(path);
  } catch (e) {
    db.close();
    if (e instanceof QhooksError) throw e;
    throw new QhooksError("log", `cannot use the event log ${path}: ${readOnlyDirectory(path) ?? describeSqliteError(e)}`, { cause: e });
  }
  return db;
}

/** Which file a path names: a removed or replaced log has another identity, or none. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

export function identityOf(path: string): FileIdentity | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? { dev: stat.dev, ino: stat.ino } : null;
}

export const sameFile = (a: FileIdentity | null, b: FileIdentity | null): boolean => a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;

/** One open log file: its connection, the statements the write path uses, and what it knows about the file. */
export class Connection {
  /** The log's stable id (log_meta), chained into every record of hash format 4. */
  readonly logId: string;
  /** The file this connection opened, to notice when the path names another one (removed, replaced). */
  readonly identity: FileIdentity | null;
  /**
   * Snapshot hashes known to be in the log already: a snapshot is appended once per hash. The ones last used only
   * (a server's connection lives for weeks of projects and edits); one not known is looked up in the file.
   */
  readonly knownSnapshots = new RecentSet<string>(SNAPSHOTS_KNOWN);
  readonly head: Statement;
  readonly insert: Statement;
  readonly snapshotKnown: Statement;
  readonly eventOf: Statement;
  readonly streakUp: Statement;
  readonly streakReset: Statement;
  readonly streakOf: Statement;
  /** The appends of a batch, placed in one transaction (made once: better-sqlite3 wraps each function it is given). */
  readonly appendBatch: ((batch: readonly PreparedAppend[]) => AppendedRecords) & { immediate: (batch: readonly PreparedAppend[]) => AppendedRecords };

  constructor(
    readonly db: Db,
    path: string,
  ) {
    this.identity = identityOf(path);
    this.logId = (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string }).value;
    this.head = db.prepare("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1");
    this.insert = db.prepare(`INSERT INTO journal (${JOURNAL_COLUMNS.join(", ")}) VALUES (${JOURNAL_COLUMNS.map(() => "?").join(", ")})`);
    this.snapshotKnown = db.prepare("SELECT 1 FROM journal WHERE kind = 'snapshot' AND config_hash = ? LIMIT 1");
    this.eventOf = db.prepare("SELECT kind, run_id, outcome IS NOT NULL AS judged FROM journal WHERE seq = ?");
    this.streakUp = db.prepare("INSERT INTO stop_streaks (session_id, streak) VALUES (?, 1) ON CONFLICT (session_id) DO UPDATE SET streak = streak + 1");
    this.streakReset = db.prepare("DELETE FROM stop_streaks WHERE session_id = ?");
    this.streakOf = db.prepare("SELECT streak FROM stop_streaks WHERE session_id = ?");
    this.appendBatch = db.transaction((batch: readonly PreparedAppend[]) => appendRecords(this, batch)) as unknown as Connection["appendBatch"];
  }
}

/** A log that closes this far behind brings its projections this much closer first (one short transaction). */
const CLOSE_CATCH_UP_LAG = 1_000;
const CLOSE_CATCH_UP_RECORDS = 500;
/** A WAL past this size (SQLite's automatic checkpoint runs at 1,000 pages) is checkpointed by whoever closes. */
const CLOSE_CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024;

/**
 * Closes a log's connection, doing first what whoever closes owes the file: a replaced file's WAL emptied into it,
 * a step of the projections' catch-up when they are far behind, a checkpoint when the WAL has grown.
 */
export function closeDatabase(conn: Connection, path: string): void {
  const db = conn.db;
  if (!db.open) return;
  try {
    if (!sameFile(identityOf(path), conn.identity)) {
      // Replaced since the last append: SQLite would leave this file's WAL at the path for the next one to read.
      db.pragma("wal_checkpoint(TRUNCATE)");
    } else {
      // A log that no projector kept up to date (a short-lived writer) takes a step now and then, so that whoever
      // reads it next has little to catch up. Best effort: the records are in the journal either way.
      if (projectionLag(db) >= CLOSE_CATCH_UP_LAG) catchUpStep(db, CLOSE_CATCH_UP_RECORDS);
      // The last connection to close checkpoints and removes the WAL; while others stay open (overlapping
      // `qhooks run`s, a bus), nobody else may, since no writer checkpoints as it commits: this one does when the
      // WAL has grown past what SQLite's own automatic checkpoint would allow.
      if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > CLOSE_CHECKPOINT_WAL_BYTES) db.pragma("wal_checkpoint(PASSIVE)");
    }
  } catch {
    // Locked or read-only: the next one to close, or the projector, does it.
  }
  db.close();
}
