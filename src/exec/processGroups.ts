import { KILL_GRACE_MS } from "./killGrace.js";

/** What outlives the engine to kill its hooks (watchdog.ts); attached by the code that starts hooks. */
export interface GroupWatcher {
  watch(pgid: number): void;
  unwatch(pgid: number): void;
}
let watcher: GroupWatcher | null = null;

/** Kept out of the static imports so that a CLI call that starts no hook never loads child_process. */
export function attachWatcher(w: GroupWatcher): void {
  watcher = w;
}

/**
 * Every process group this engine started and may still have to kill. A group leaves the registry when its main
 * process exits on its own (leftover background processes are the hook's business), or once SIGKILL
 * has been sent after a timeout or a cancel.
 */
const live = new Set<number>();
let exitHookInstalled = false;

export function registerGroup(pgid: number): void {
  live.add(pgid);
  watcher?.watch(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Timers do not run once the process is exiting: what is still pending is killed now, synchronously.
    process.on("exit", killAllGroupsNow);
  }
}

export function releaseGroup(pgid: number): void {
  if (live.delete(pgid)) watcher?.unwatch(pgid);
}

/** SIGTERM to the whole group, then SIGKILL after a grace period for whatever ignored it. */
export function terminateGroup(pgid: number, graceMs: number = KILL_GRACE_MS): void {
  if (!live.has(pgid)) return;
  signalGroup(pgid, "SIGTERM");
  const timer = setTimeout(() => {
    signalGroup(pgid, "SIGKILL");
    releaseGroup(pgid);
  }, graceMs);
  timer.unref();
}

export function killAllGroupsNow(): void {
  for (const pgid of live) signalGroup(pgid, "SIGKILL");
  for (const pgid of [...live]) releaseGroup(pgid);
}

export const liveGroupCount = (): number => live.size;

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone, which is what we wanted.
  }
}
