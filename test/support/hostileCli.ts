import { spawn } from "node:child_process";
import { CLI, type CliResult, type Sandbox } from "./sandbox.js";

/** How the CLI's stdin is fed: bytes (then EOF), a stream that never ends, or an open file descriptor. */
export type HostileStdin = string | Buffer | { readonly endless: true } | { readonly fd: number };

export interface HostileRunOptions {
  readonly stdin?: HostileStdin;
  readonly env?: Record<string, string | undefined>;
  /** Close our end of the CLI's stdout (or stderr) before it writes anything: its writes then fail with EPIPE. */
  readonly closeStdout?: boolean;
  readonly closeStderr?: boolean;
  /** A command the CLI runs under, e.g. `["prlimit", "--nofile=64"]`. */
  readonly prefix?: readonly string[];
  /** SIGKILL after this long: `hung` says so. A coarse "does not hang" bound, never a performance target. */
  readonly deadlineMs: number;
}

/**
 * Runs the real `qhooks` binary the way a careless agent or a hostile environment would: stdin that never ends or is
 * a device, output pipes whose reader is gone, resource limits. Always settles (the deadline kills it).
 */
export function runHostile(sb: Sandbox, args: readonly string[], options: HostileRunOptions): Promise<CliResult & { hung: boolean }> {
  const start = performance.now();
  const given = options.stdin ?? "";
  const bytes = typeof given === "string" || Buffer.isBuffer(given) ? given : null;
  const special = bytes === null ? (given as Exclude<HostileStdin, string | Buffer>) : null;
  const stdinSpec = special !== null && "fd" in special ? special.fd : "pipe";
  const [command, ...rest] = [...(options.prefix ?? []), process.execPath, CLI, ...args];
  const child = spawn(command!, rest, { cwd: sb.project, env: sb.env(options.env), stdio: [stdinSpec, "pipe", "pipe"] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  if (options.closeStdout) child.stdout!.destroy();
  else child.stdout!.on("data", (c: Buffer) => stdout.push(c));
  if (options.closeStderr) child.stderr!.destroy();
  else child.stderr!.on("data", (c: Buffer) => stderr.push(c));
  let feeding: NodeJS.Timeout | undefined;
  if (child.stdin) {
    child.stdin.on("error", () => undefined);
    if (special !== null && "endless" in special) {
      // Writes as fast as the pipe takes them, for as long as the CLI keeps it open.
      const chunk = Buffer.alloc(1024 * 1024, "x");
      const feed = () => {
        while (!child.stdin!.destroyed && child.stdin!.write(chunk));
        if (!child.stdin!.destroyed) child.stdin!.once("drain", feed);
      };
      feeding = setTimeout(feed, 0);
    } else child.stdin.end(bytes ?? "");
  }
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill("SIGKILL");
  }, options.deadlineMs);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearTimeout(feeding);
      child.stdin?.destroy();
      resolve({
        code,
        signal,
        hung,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
        ms: performance.now() - start,
      });
    });
  });
}
