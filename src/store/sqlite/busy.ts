/** Waiting for another process's lock on a SQLite log, in short blocking steps (see whileBusy). */

/** How long a write transaction waits for another process's lock, blocking, before the append waits asynchronously. */
export const WRITE_SPIN_MS = 10;
/** How long an append (or a write step of maintenance) keeps retrying, asynchronously, before it gives up and the caller is told. */
export const APPEND_BUDGET_MS = 5_000;
/** Reads wait for a lock only in rare moments (another connection recovering the WAL index). */
export const READ_SPIN_MS = 200;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Runs `attempt` again every tenth of a millisecond while it finds the log locked, for at most `ms`. */
export function whileBusy<T>(attempt: () => T, ms: number): T {
  const deadline = performance.now() + ms;
  for (;;) {
    try {
      return attempt();
    } catch (e) {
      if (!(isBusy(e) || isLocked(e)) || performance.now() >= deadline) throw e;
      Atomics.wait(pause, 0, 0, 0.1);
    }
  }
}

// better-sqlite3 reports extended codes: SQLITE_BUSY_RECOVERY (another process is rebuilding the WAL index, as when
// several open a new log at once), SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE. Each is a lock to wait for.
export const isBusy = (e: unknown) => /^SQLITE_BUSY(_|$)/.test((e as { code?: string }).code ?? "");
export const isLocked = (e: unknown) => /^SQLITE_LOCKED(_|$)/.test((e as { code?: string }).code ?? "");
