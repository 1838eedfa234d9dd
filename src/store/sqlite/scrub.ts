import type { Database } from "better-sqlite3";
import type { Leftover } from "../eventLog.js";

/** How long emptying the write-ahead file waits for other connections' reads to end. */
const CHECKPOINT_WAIT_MS = 2000;

/**
 * Rows that erase rewrote or prune deleted are gone from the tables, not from the files: SQLite leaves the old
 * bytes in the page's free space, in freed pages, in the write-ahead file's earlier frames, and (until a checkpoint)
 * the log file keeps the pages from before. VACUUM rewrites every page with only what is live; secure_delete (on
 * while erase and prune run) zeroes what is freed meanwhile.
 */
export function rewriteFile(db: Database): void {
  db.exec("VACUUM");
}

/**
 * Copies the rewritten pages over the old ones and empties the write-ahead file (a TRUNCATE checkpoint). Another
 * connection still reading the pages from before keeps them there: that is said as a leftover, not waited for.
 */
export function emptyWal(db: Database, path: string): Leftover[] {
  const before = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma(`busy_timeout = ${CHECKPOINT_WAIT_MS}`);
  try {
    const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
    return result?.busy === 0 ? [] : [{ kind: "wal-in-use", file: `${path}-wal` }];
  } catch {
    return [{ kind: "wal-in-use", file: `${path}-wal` }];
  } finally {
    db.pragma(`busy_timeout = ${before}`);
  }
}

/** Runs erase or prune with secure_delete on for this connection: what it frees is zeroed, not left in the file. */
export async function withSecureDelete<T>(db: Database, work: () => Promise<T>): Promise<T> {
  const before = db.pragma("secure_delete", { simple: true }) as number;
  db.pragma("secure_delete = ON");
  try {
    return await work();
  } finally {
    if (db.open) db.pragma(`secure_delete = ${before}`);
  }
}
