import { accessSync, constants } from "node:fs";
import { dirname } from "node:path";
import type { Database as Db } from "better-sqlite3";
import { messageOf } from "../../errors.js";
import { isBusy } from "./busy.js";

/**
 * Puts a new file in WAL mode. The switch needs the file to itself, and SQLite answers it with SQLITE_BUSY at once,
 * without its busy handler, while another process has the file open: as when several agents create the log at the
 * same moment (measured: 1 open in about 250 failed so). Retried, blocking (opening is synchronous), within the
 * setup budget; once one process has switched, the others find WAL and have nothing to do.
 */
export function switchToWal(db: Db, budgetMs: number): void {
  const deadline = Date.now() + budgetMs;
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
export function readOnlyDirectory(path: string): string | null {
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
