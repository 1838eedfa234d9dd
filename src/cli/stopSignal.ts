/** The signals that stop qhooks from outside (as the engine's own handler in main.ts lists them). */
const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/** Longest a command may take to wind down after a stop signal, before the signal is raised again regardless. */
export const STOP_GRACE_MS = 3000;

export interface DeferredStop {
  /** The stop signal that arrived, if one did. */
  readonly received: NodeJS.Signals | null;
  /** Removes the handlers; if a signal arrived, raises it again, so that the process dies of it as it would have. */
  release(): void;
}

/**
 * For a command that must leave a trace when stopped from outside (the detached process of an async hook logs its
 * hook as stopped): while it runs, a stop signal calls `stop` instead of ending the process at once, and the command
 * winds down its own way and calls `release()`, which raises the signal again. If winding down takes longer than
 * STOP_GRACE_MS, the signal is raised then. A second signal meanwhile changes nothing (SIGKILL still works).
 *
 * Whatever other handlers do (main.ts kills the hooks' process groups and raises the signal again) happens too:
 * while these handlers are registered, that raised signal only reaches them and does not end the process.
 */
export function deferStopSignals(stop: (signal: NodeJS.Signals) => void): DeferredStop {
  let received: NodeJS.Signals | null = null;
  let grace: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received !== null) return;
    received = signal;
    grace = setTimeout(release, STOP_GRACE_MS);
    stop(signal);
  };
  let released = false;
  function release(): void {
    if (released) return;
    released = true;
    clearTimeout(grace);
    for (const s of STOP_SIGNALS) process.removeListener(s, onSignal);
    if (received !== null) process.kill(process.pid, received);
  }
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  return {
    get received() {
      return received;
    },
    release,
  };
}
