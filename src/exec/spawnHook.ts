import { existsSync } from "node:fs";
import { execa } from "execa";
import { Observable } from "rxjs";
import { CappedOutput } from "./cappedOutput.js";
import { attachWatcher, registerGroup, releaseGroup, terminateGroup } from "./processGroups.js";
import { watchdog } from "./watchdog.js";

attachWatcher(watchdog);

export interface HookProcessRequest {
  readonly command: string;
  readonly cwd: string;
  /** The complete environment of the hook (nothing is inherited implicitly). */
  readonly env: Readonly<Record<string, string>>;
  /** The payload JSON, written to stdin then closed. */
  readonly input: string;
  readonly stdout: CappedOutput;
  readonly stderr: CappedOutput;
}

/** How a hook's main process ended; output is read from the request's CappedOutputs. */
export type HookProcessEnd =
  | { readonly type: "exited"; readonly exitCode: number | null; readonly signal: NodeJS.Signals | null }
  | { readonly type: "spawn-error"; readonly message: string };

/**
 * After the main process exits, how long to keep reading output that is still in the pipes. A background process
 * the hook left behind may hold them open forever (contract 8): it is not waited for beyond this.
 */
export const PIPE_DRAIN_MS = 25;

/**
 * The first line of every hook's script: wait for one line on stdin, which the engine writes only once the hook's
 * process group is registered with the watchdog, then run the configured command in the same shell. Starting a
 * process and registering it cannot be one step, and execa takes milliseconds in between: a SIGKILL of the engine
 * landing there used to leave the hook running forever, unknown to the watchdog. Now the engine's death closes stdin
 * first and the hook exits without running its command.
 *
 * A shell's `read` takes its line from a pipe byte by byte, so the hook's stdin starts exactly at the payload. The
 * gate is a line of the same script rather than a shell that execs `/bin/sh -c <command>` after it: a second exec
 * of the shell cost about 0.6 ms per hook, measured here (bench case 2).
 */
const GATE = "IFS= read -r _ || exit 125\n";

/**
 * Runs one hook command as `/bin/sh -c <gate line + command>` in a process group of its own. Emits once, when the
 * main process has exited and its output has been read, then completes. Unsubscribing before that kills the whole group
 * (SIGTERM, then SIGKILL after a grace period): this is how a timeout or a cancelled dispatch stops a hook.
 *
 * This is the only place qhooks starts a hook.
 */
export function spawnHook(request: HookProcessRequest): Observable<HookProcessEnd> {
  return new Observable<HookProcessEnd>((subscriber) => {
    const subprocess = execa("/bin/sh", ["-c", GATE + request.command], {
      cwd: request.cwd,
      env: request.env,
      extendEnv: false,
      // A new session and process group (pgid = pid), so that the whole tree can be signalled at once.
      detached: true,
      // We read the pipes ourselves: execa's buffering waits for EOF, which a grandchild can hold back forever,
      // and its maxBuffer kills the hook instead of just cutting its output.
      buffer: false,
      encoding: "buffer",
      stripFinalNewline: false,
      reject: false,
      cleanup: false,
    });
    // execa settles its promise when the pipes close; we never wait for that, but must not leave it unhandled.
    subprocess.then(
      () => undefined,
      () => undefined,
    );

    const pid = subprocess.pid;
    if (pid === undefined) {
      subprocess.then((result) => {
        const reason = result.failed ? (result.originalMessage ?? result.shortMessage) : "no process id";
        // execa's messages span several lines (e.g. an invalid cwd, then the ENOENT behind it); results keep one.
        // ENOENT with /bin/sh present nearly always means the working directory is gone: say that.
        const oneLine = !existsSync(request.cwd)
          ? `its working directory ${request.cwd} does not exist`
          : (reason ?? "unknown error")
              .split("\n")
              .map((l) => l.trim())
              .filter((l) => l !== "")
              .join(" ");
        subscriber.next({ type: "spawn-error", message: `could not start the hook: ${oneLine}` });
        subscriber.complete();
      });
      return;
    }
    registerGroup(pid);

    const { stdin, stdout, stderr } = subprocess;
    stdout.on("data", request.stdout.push);
    stderr.on("data", request.stderr.push);
    // A hook may exit, or close stdin, without reading its payload: EPIPE is expected, not a failure.
    stdin.on("error", () => undefined);
    // Registered (and the watchdog told): open the gate, then the payload.
    stdin.end(`go\n${request.input}`);

    let exited = false;
    let terminating = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const streamsClosed = () => stdout.readableEnded && stderr.readableEnded;
    const finish = (end: HookProcessEnd) => {
      if (subscriber.closed) return;
      clearTimeout(drainTimer);
      stdout.destroy();
      stderr.destroy();
      subscriber.next(end);
      subscriber.complete();
    };

    subprocess.once("exit", (exitCode, signal) => {
      exited = true;
      // The main process is done: whatever it left running is its own business, not the watchdog's, unless we are
      // killing the group, in which case it stays listed until SIGKILL has gone out.
      if (!terminating) releaseGroup(pid);
      const end: HookProcessEnd = { type: "exited", exitCode, signal };
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
      clearTimeout(drainTimer);
      if (!exited) {
        terminating = true;
        terminateGroup(pid);
      }
      stdin.destroy();
      stdout.destroy();
      stderr.destroy();
    };
  });
}
