import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { QhooksError } from "../errors.js";
import { compareVersions } from "../text/semver.js";
import { LOOPBACK } from "./httpTransport.js";
import { serverPaths } from "./paths.js";
import { rotateIfFull } from "./serveLog.js";
import { probeServer } from "./probe.js";
import type { HealthAnswer } from "./schemas.js";
import { isAlive, readState } from "./state.js";
import { readOrCreateToken } from "./token.js";

/** A server that answered the challenge: it holds the secret, and it is the process the state file names. */
export interface LiveServer {
  readonly url: string;
  readonly health: HealthAnswer;
}

/** The user's running server, verified; null when none runs (or the state file names a process that is not it). */
export async function liveServer(homeDir: string): Promise<LiveServer | null> {
  const paths = serverPaths(homeDir);
  const state = readState(paths.state);
  if (state?.pid == null || !isAlive(state.pid)) return null;
  const health = await probeServer(state.port, readOrCreateToken(paths.token), state.pid);
  return health === null ? null : { url: `http://${LOOPBACK}:${health.port}`, health };
}

export interface EnsureOptions {
  readonly homeDir: string;
  /** How to start `qhooks serve` (node and the qhooks bin, with the arguments). */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** The caller's qhooks version: a running server of an older one is stopped and started again. */
  readonly version: string;
  readonly waitMs?: number;
}

/** What `--ensure` found and did. `replaced`: the older version of a server it stopped to start this one. */
export interface Ensured {
  readonly server: LiveServer;
  readonly started: boolean;
  readonly replaced: string | null;
}

/**
 * `qhooks serve --ensure`: the running server, or a new one started in the background, in a session of its own (it
 * outlives the caller), its stderr appended to serve.log. Two at once start two processes, of which the lock lets
 * one listen; both return the one that does. A server of an older qhooks version (semantic versioning's order) is
 * stopped first, its events under way answered, and the new one listens on its port; a newer one is left running.
 */
export async function ensureServer(options: EnsureOptions): Promise<Ensured> {
  const running = await liveServer(options.homeDir);
  let replaced: string | null = null;
  if (running !== null) {
    if (compareVersions(running.health.version, options.version) !== -1) return { server: running, started: false, replaced };
    await stopServer(options.homeDir);
    replaced = running.health.version;
  }
  const paths = serverPaths(options.homeDir);
  readOrCreateToken(paths.token);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  // Its stderr (what Node itself says on a crash) goes to serve.log as it is at the start; its own lines are
  // written by path (--log-file), so that serve.log rotates at 1 MiB.
  rotateIfFull(paths.log);
  const out = openSync(paths.log, "a", 0o600);
  let exitedAt: number | null = null;
  try {
    const child = spawn(options.command, [...options.args, "--log-file", paths.log], {
      detached: true,
      stdio: ["ignore", out, out],
      env: options.env,
      cwd: options.homeDir,
    });
    child.on("exit", () => (exitedAt = Date.now()));
    child.on("error", () => (exitedAt = Date.now()));
    child.unref();
  } finally {
    closeSync(out);
  }
  const deadline = Date.now() + (options.waitMs ?? 15_000);
  while (Date.now() < deadline) {
    await sleep(50);
    const server = await liveServer(options.homeDir);
    if (server !== null) return { server, started: true, replaced };
    // Its child exiting is no failure by itself: another --ensure's server may have won the lock; wait for that one.
    if (exitedAt !== null && Date.now() - exitedAt > 3000) break;
  }
  throw new QhooksError("io", `the server did not start; see ${paths.log}`);
}

/** `qhooks serve --stop`: SIGTERM to the verified server, then waits for it to end. false: none was running. */
export async function stopServer(homeDir: string, waitMs = 60_000): Promise<LiveServer | null> {
  const paths = serverPaths(homeDir);
  const state = readState(paths.state);
  const server = await liveServer(homeDir);
  if (server === null) {
    if (state?.pid != null && isAlive(state.pid)) {
      throw new QhooksError("io", `pid ${state.pid} in ${paths.state} does not answer as qhooks serve; not stopping it`);
    }
    return null;
  }
  try {
    process.kill(server.health.pid, "SIGTERM");
  } catch {
    return server; // it ended meanwhile (another --stop or --ensure)
  }
  const deadline = Date.now() + waitMs;
  while (isAlive(server.health.pid)) {
    if (Date.now() > deadline) throw new QhooksError("io", `the server (pid ${server.health.pid}) has not stopped after ${waitMs / 1000} s`);
    await sleep(50);
  }
  return server;
}
