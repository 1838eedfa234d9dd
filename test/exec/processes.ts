import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";

/**
 * Helpers for tests that start real processes: find them by a unique marker or by process group, wait for them to
 * go away with a deadline, and kill whatever a test left behind. Zombies count as gone: this machine's PID 1 does
 * not always reap orphans promptly, and a zombie holds no resources a hook could use.
 */

export interface ProcStat {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
}

export function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses, so split after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { pid, state: fields[0]!, ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]) };
}

/** Alive and not a zombie. */
export function isAlive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.state !== "Z";
}

function allPids(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** Live (non-zombie) members of a process group. */
export function groupMembers(pgid: number): number[] {
  return allPids().filter((pid) => {
    const stat = procStat(pid);
    return stat !== null && stat.pgrp === pgid && stat.state !== "Z";
  });
}

/** Live (non-zombie) direct children of a process. */
export function childrenOf(ppid: number): number[] {
  return allPids().filter((pid) => {
    const stat = procStat(pid);
    return stat !== null && stat.ppid === ppid && stat.state !== "Z";
  });
}

/** `pgrep -f` for a literal marker, without zombies and without this process. */
export function pidsMatching(marker: string): number[] {
  const pattern = marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  let out = "";
  try {
    out = execFileSync("pgrep", ["-f", "--", pattern], { encoding: "utf8" });
  } catch (e) {
    // pgrep exits 1 when nothing matches.
    if ((e as { status?: number }).status === 1) return [];
    throw e;
  }
  return out
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(Number)
    .filter((pid) => pid !== process.pid && isAlive(pid));
}

let counter = 0;

/**
 * A `sleep` command with a duration nobody else uses, e.g. `sleep 31.41591234567`: its command line is the marker
 * `pgrep -f` looks for, so tests never see (or kill) processes that are not theirs.
 */
export function uniqueSleep(seconds: number): string {
  counter += 1;
  const digits = `${process.pid}${counter}${Math.floor(Math.random() * 1e6)}`;
  return `sleep ${Math.floor(seconds)}.${digits}`;
}

/** Polls `probe` until it returns a truthy value, or fails after `timeoutMs` saying what was awaited. */
export async function waitFor<T>(what: string, probe: () => T | null | undefined | false, timeoutMs: number, intervalMs = 20): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Reads an integer PID from a file a hook wrote, once it is complete. */
export function pidFromFile(path: string): number | null {
  try {
    const text = readFileSync(path, "utf8");
    if (!text.endsWith("\n")) return null;
    const pid = Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function kill(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // already gone
  }
}

/** Remembers what a test started (markers, groups, pids) and SIGKILLs all of it in afterEach, pass or fail. */
export class Reaper {
  private readonly markers = new Set<string>();
  private readonly groups = new Set<number>();
  private readonly pids = new Set<number>();

  marker(marker: string): string {
    this.markers.add(marker);
    return marker;
  }

  group(pgid: number): number {
    this.groups.add(pgid);
    return pgid;
  }

  pid(pid: number): number {
    this.pids.add(pid);
    return pid;
  }

  reap(): void {
    for (const marker of this.markers) {
      for (const pid of pidsMatching(marker)) {
        const stat = procStat(pid);
        // Only groups led by something other than this test process: never signal our own group.
        if (stat && stat.pgrp !== process.pid && stat.pgrp !== procStat(process.pid)?.pgrp) kill(-stat.pgrp, "SIGKILL");
        kill(pid, "SIGKILL");
      }
    }
    for (const pgid of this.groups) if (pgid > 1 && pgid !== procStat(process.pid)?.pgrp) kill(-pgid, "SIGKILL");
    for (const pid of this.pids) kill(pid, "SIGKILL");
    this.markers.clear();
    this.groups.clear();
    this.pids.clear();
  }
}

/** Number of open file descriptors of this process. */
export const openFdCount = (): number => readdirSync("/proc/self/fd").length;
