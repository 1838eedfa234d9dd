import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { QhooksError, messageOf } from "../errors.js";
import { ServerStateSchema, type ServerState } from "./schemas.js";

/** The state file as it is; null when there is none (or it is not one: a server then starts over it). */
export function readState(path: string): ServerState | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  try {
    const parsed = ServerStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Replaces the state file at once (a reader sees the old or the new one, never half of one). */
export function writeState(path: string, state: ServerState): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

/**
 * Whether a process of this id is alive (one of another user counts: its id is taken). A zombie is not: a server
 * killed -9 whose parent never reaps it (a container's init) still answers signal 0. Linux says so in /proc; where
 * there is no /proc, signal 0 decides.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return true;
  }
  // "pid (comm) state ...": comm may hold spaces and parentheses.
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

/**
 * Runs `fn` holding the server's lock: a file made exclusively, holding its owner's pid. A lock whose owner died
 * (a server killed -9 while starting) is taken over; one held alive longer than `waitMs` is an error.
 */
export async function withLock<T>(path: string, fn: () => Promise<T>, waitMs = 15_000): Promise<T> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new QhooksError("io", `cannot take the server's lock ${path}: ${messageOf(e)}`);
      const owner = Number.parseInt(safeRead(path), 10);
      // An empty file is a lock being written this instant: only a dead owner's is removed.
      if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) {
        removeIfOwner(path, String(owner));
        continue;
      }
      if (Date.now() > deadline) throw new QhooksError("io", `the server's lock ${path} is held by pid ${owner}; if no qhooks serve is starting, delete it`);
      await sleep(25);
    }
  }
  try {
    return await fn();
  } finally {
    removeIfOwner(path, String(process.pid));
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function removeIfOwner(path: string, owner: string): void {
  if (safeRead(path).trim() !== owner) return;
  try {
    unlinkSync(path);
  } catch {
    // taken over already
  }
}
