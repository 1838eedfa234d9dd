import { statSync } from "node:fs";
import type { Database as Db, Statement } from "better-sqlite3";
import { JOURNAL_COLUMNS } from "../journal/record.js";
import type { PreparedAppend } from "../journal/prepareAppend.js";
import { appendRecords, type AppendedRecords } from "./appendRecords.js";

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
  /** Snapshot hashes known to be in the log already: a snapshot is appended once per hash. */
  readonly knownSnapshots = new Set<string>();
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
