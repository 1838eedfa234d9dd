import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { sha256Hex } from "../json/canonicalHash.js";
import type { NoticeCounter } from "../output/failureNotices.js";
import { SESSIONS_REMEMBERED, sessionMemory } from "../core/recentMap.js";

/** A session's file stops growing here (about 7,000 notices): past it, a notice counts as said, and says nothing. */
export const MAX_NOTICE_FILE_BYTES = 256 * 1024;
/** Session files not touched for this long are removed when a new session's file is made. */
const STALE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * How many times each notice came up in a session, shared by every `qhooks run` of the machine (each event of a
 * session is its own process): one file per session in `dir` (next to the log, 0600 in a 0700 folder), one line
 * appended per notice, `<key hash> <token>`. Appends of one short line are atomic, so a process finds its own line's
 * place among the lines of its key even when events of the session are judged at once: two processes never both
 * count as first. A file that cannot be written makes every notice a first (a notice is said rather than lost).
 */
export function fileNoticeCounter(dir: string): NoticeCounter {
  let made = false;
  return {
    count(sessionId, key) {
      const file = join(dir, sha256Hex(`notices\0${sessionId}`).slice(0, 40));
      const keyHash = sha256Hex(key).slice(0, 16);
      const token = randomBytes(6).toString("hex");
      let fd: number;
      try {
        if (!made) mkdirSync(dir, { recursive: true, mode: 0o700 });
        made = true;
        fd = openSync(file, "a+", 0o600);
      } catch {
        return 1;
      }
      try {
        const size = fstatSync(fd).size;
        if (size === 0) removeStale(dir, file);
        if (size >= MAX_NOTICE_FILE_BYTES) return Number.POSITIVE_INFINITY;
        writeSync(fd, `${keyHash} ${token}\n`);
        const text = readAll(fd);
        let nth = 0;
        for (const line of text.split("\n")) {
          if (!line.startsWith(`${keyHash} `)) continue;
          nth++;
          if (line === `${keyHash} ${token}`) return nth;
        }
        return 1;
      } catch {
        return 1;
      } finally {
        closeSync(fd);
      }
    },
  };
}

function readAll(fd: number): string {
  const size = Math.min(fstatSync(fd).size, MAX_NOTICE_FILE_BYTES + 4096);
  const buffer = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const n = readSync(fd, buffer, read, size - read, read);
    if (n === 0) break;
    read += n;
  }
  return buffer.toString("utf8", 0, read);
}

/** Keeps the folder bounded: the files of sessions long over go, one sweep per new session. */
function removeStale(dir: string, keep: string): void {
  const now = Date.now();
  try {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === keep) continue;
      try {
        if (now - statSync(path).mtimeMs > STALE_MS) rmSync(path, { force: true });
      } catch {
        // Another process removed it first, or it is not ours to stat: leave it.
      }
    }
  } catch {
    // A folder that cannot be listed costs the sweep, never the notice.
  }
}

/**
 * Memory of one process: for `qhooks run --no-log`, every notice comes up for the first time; a server without a log
 * keeps the counts of the sessions last active (core/recentMap.ts SESSIONS_REMEMBERED).
 */
export function memoryCounter(maxSessions = SESSIONS_REMEMBERED): NoticeCounter {
  const counts = sessionMemory(() => new Map<string, number>(), maxSessions);
  return {
    count(sessionId, key) {
      const session = counts(sessionId);
      const n = (session.get(key) ?? 0) + 1;
      session.set(key, n);
      return n;
    },
  };
}
