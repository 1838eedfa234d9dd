import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { getSystemErrorMap } from "node:util";
import { Observable } from "rxjs";
import { messageOf } from "../errors.js";
import { oneLineText } from "../text/oneLine.js";
import type { CappedOutput } from "./cappedOutput.js";
import { attachWatcher, registerGroup, releaseGroup, terminateGroup } from "./processGroups.js";
import { watchdog } from "./watchdog.js";

attachWatcher(watchdog);

export interface HookProcessRequest {
  readonly command: string;
  /** The shell that runs the command with `-c` (a path, or a name looked up on PATH); /bin/sh by default. */
  readonly shell?: string;
  readonly cwd: string;
  /** The complete environment of the hook (nothing is inherited implicitly). */
  readonly env: Readonly<Record<string, string>>;
  /** The payload JSON, written to stdin then closed. */
  readonly input: string;
  readonly stdout: CappedOutput;
  readonly stderr: CappedOutput;
  /**
   * The process is started at once, but its command runs only once this resolves: the gate's line waits for it.
   * What it waits for (an event's arrival committing) overlaps with starting the shell.
   */
  readonly gate?: PromiseLike<unknown>;
  /** Descriptors the hook gets as 3, 4, ... (trust's verified copies of its scripts); the caller closes them. */
  readonly extraFds?: readonly number[];
}

/** How a hook's main process ended; output is read from the request's CappedOutputs. */
export type HookProcessEnd =
  | { readonly type: "exited"; readonly exitCode: number | null; readonly signal: NodeJS.Signals | null }
  | { readonly type: "spawn-error"; readonly message: string };

/**
 * After the main process exits, how long to keep reading output that is still in the pipes. A background process
 * the hook left behind may hold them open forever: it is not waited for beyond this.
 */
export const PIPE_DRAIN_MS = 25;

/**
 * The first line of every hook's script: wait for one line on stdin, which the engine writes only once the hook's
 * process group is registered with the watchdog, then run the configured command in the same shell. Starting a
 * process and registering it cannot be one step, and there is time in between: a SIGKILL of the engine
 * landing there used to leave the hook running forever, unknown to the watchdog. Now the engine's death closes stdin
 * first and the hook exits without running its command.
 *
 * A shell's `read` takes its line from a pipe byte by byte, so the hook's stdin starts exactly at the payload. The
 * gate is a line of the same script rather than a shell that execs `/bin/sh -c <command>` after it: a second exec
 * of the shell cost about 0.6 ms per hook, measured here (bench case 2).
 */
const GATE = "IFS= read -r _ || exit 125\n";

/**
 * Failures to start a process that say the system is short of something right now (file descriptors, processes,
 * memory): siblings of the same event finishing, or the rest of the machine, free it again. Such a start is retried
 * until it works or the hook's timeout ends it, so that a flood of hooks cannot turn a guard into an error.
 */
const TRANSIENT_SPAWN_ERRORS = new Set(["EMFILE", "ENFILE", "EAGAIN", "ENOMEM"]);
const RETRY_FIRST_MS = 5;
const RETRY_MOST_MS = 100;

/**
 * Runs one hook command as `/bin/sh -c <gate line + command>` in a process group of its own. Emits once, when the
 * main process has exited and its output has been read, then completes. Unsubscribing before that kills the whole group
 * (SIGTERM, then SIGKILL after a grace period): this is how a timeout or a cancelled dispatch stops a hook.
 *
 * Whatever starting the process throws or reports (a NUL in the command, E2BIG, a working directory that is gone,
 * file descriptors exhausted) ends as a `spawn-error` value of this hook: never an exception, never an unhandled
 * 'error' event that would take the engine down with every other hook's decision.
 *
 * This is the only place qhooks starts a hook.
 */
export function spawnHook(request: HookProcessRequest): Observable<HookProcessEnd> {
  return new Observable<HookProcessEnd>((subscriber) => {
    let attempt: (() => void) | null = null;
    let retryTimer: NodeJS.Timeout | undefined;
    let delay = RETRY_FIRST_MS;
    const start = () => {
      const started = startProcess(request, (end) => {
        if (end.type === "start-failed" && end.code !== undefined && TRANSIENT_SPAWN_ERRORS.has(end.code)) {
          attempt = null;
          retryTimer = setTimeout(start, delay);
          delay = Math.min(delay * 2, RETRY_MOST_MS);
          return;
        }
        subscriber.next(end.type === "start-failed" ? { type: "spawn-error", message: end.message } : end);
        subscriber.complete();
      });
      attempt = started;
    };
    start();
    return () => {
      clearTimeout(retryTimer);
      attempt?.();
    };
  });
}

type Attempt = Extract<HookProcessEnd, { type: "exited" }> | { readonly type: "start-failed"; readonly message: string; readonly code: string | undefined };

/**
 * Starts the process once; calls `done` exactly once, unless the returned teardown (kill and stop listening) runs
 * first.
 */
function startProcess(request: HookProcessRequest, done: (end: Attempt) => void): () => void {
  let settled = false;
  const settle = (end: Attempt) => {
    if (settled) return;
    settled = true;
    done(end);
  };
  const spawnFailed = (e: unknown) => {
    const error = e as NodeJS.ErrnoException;
    // ENOENT with /bin/sh present nearly always means the working directory is gone: say that.
    const message =
      error.code === "ENOENT" && !existsSync(request.cwd)
        ? `its working directory ${request.cwd} does not exist`
        : error.code === "ENOENT" && request.shell !== undefined
          ? `its shell ${request.shell} was not found`
          : describeSpawnError(error);
    settle({ type: "start-failed", message: `could not start the hook: ${message}`, code: error.code });
  };

  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(request.shell ?? "/bin/sh", ["-c", GATE + request.command], {
      cwd: request.cwd,
      env: request.env,
      // A new session and process group (pgid = pid), so that the whole tree can be signalled at once.
      detached: true,
      stdio: ["pipe", "pipe", "pipe", ...(request.extraFds ?? [])],
    }) as ChildProcessWithoutNullStreams;
  } catch (e) {
    // Thrown before any process exists: arguments Node refuses, E2BIG, and the like.
    spawnFailed(e);
    return () => undefined;
  }
  // Reported asynchronously (a missing working directory, EMFILE, EAGAIN): the process never started. After a start,
  // 'error' can only come from signalling it, which qhooks does by process group, not through this object.
  child.on("error", (e) => {
    if (child.pid === undefined) spawnFailed(e);
  });
  const pid = child.pid;
  // When the descriptors ran out, Node gives back an object without pipes (and the 'error' above follows).
  if (pid === undefined || !child.stdin || !child.stdout || !child.stderr) {
    return () => {
      settled = true;
    };
  }
  registerGroup(pid);

  const { stdin, stdout, stderr } = child;
  stdout.on("data", request.stdout.push);
  stderr.on("data", request.stderr.push);
  // The pipes' errors (a reset connection) end them like EOF; the exit still decides.
  stdout.on("error", () => undefined);
  stderr.on("error", () => undefined);
  // A hook may exit, or close stdin, without reading its payload: EPIPE is expected, not a failure.
  stdin.on("error", () => undefined);
  // Registered (and the watchdog told): open the gate, then the payload; with a gate of the caller's, once it opens.
  if (request.gate === undefined) stdin.end(`go\n${request.input}`);
  else
    request.gate.then(
      () => settled || stdin.end(`go\n${request.input}`),
      () => settled || stdin.end(`go\n${request.input}`),
    );

  let exited = false;
  let terminating = false;
  let drainTimer: NodeJS.Timeout | undefined;
  const streamsClosed = () => stdout.readableEnded && stderr.readableEnded;
  const finish = (end: Attempt) => {
    clearTimeout(drainTimer);
    stdout.destroy();
    stderr.destroy();
    settle(end);
  };

  child.once("exit", (exitCode, signal) => {
    exited = true;
    // The main process is done: whatever it left running is its own business, not the watchdog's, unless we are
    // killing the group, in which case it stays listed until SIGKILL has gone out.
    if (!terminating) releaseGroup(pid);
    if (settled) return;
    const end: Attempt = { type: "exited", exitCode, signal };
    if (streamsClosed()) return finish(end);
    let pending = 2;
    const onClosed = () => --pending === 0 && finish(end);
    stdout.once("close", onClosed);
    stderr.once("close", onClosed);
    // The window ends only after the event loop has polled for I/O once more: the exit may have been reaped
    // (libuv reaps every exited child at once) before the readiness of its last output was even polled, and a
    // loop busy for longer than the window would otherwise run this timer before reading that output.
    drainTimer = setTimeout(() => setImmediate(() => finish(end)), PIPE_DRAIN_MS);
  });

  return () => {
    settled = true;
    clearTimeout(drainTimer);
    if (!exited) {
      terminating = true;
      terminateGroup(pid);
    }
    stdin.destroy();
    stdout.destroy();
    stderr.destroy();
  };
}

/** `E2BIG (argument list too long)`; Node's own errors (invalid arguments) by their first line, cut. */
function describeSpawnError(error: NodeJS.ErrnoException): string {
  const system = typeof error.errno === "number" ? getSystemErrorMap().get(error.errno) : undefined;
  if (system) return `${system[0]} (${system[1]})`;
  return oneLineText(messageOf(error));
}
