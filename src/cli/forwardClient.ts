import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { MAX_PAYLOAD_BYTES } from "../payload/payloadLimit.js";
import { FORWARD_SILENCE_MS } from "../server/forwardTiming.js";
import { serverPaths } from "../server/paths.js";
import { parseForwardArgs, type ForwardArgs } from "./forwardArgs.js";
import { exchange, type Exchange, type ForwardTarget } from "./forwardWire.js";
import type { ForwardedReply } from "../server/schemas.js";
import { STDIN_TAKEN } from "./io.js";
import { sayReply } from "./sayReply.js";
import { version } from "./version.js";

/**
 * `qhooks run --format hook` handed to the user's running `qhooks serve` (POST /run), which judges it as this process
 * would, warm: no CLI bundle to load, no log to open. Bundled on its own (dist/bin/forward.cjs) and loaded by
 * bin.cts before the CLI: it reads only the state file, the secret and stdin, and speaks HTTP over a plain socket.
 * Any doubt gives false, and the CLI judges the run in this process, with stdin as read here (STDIN_TAKEN): no
 * server, a stale pid, an option it does not know, a server of another version, home or log (409), a listener that
 * does not prove it holds the secret (it is never sent to one), a server that fails the run (silent for
 * FORWARD_SILENCE_MS, a connection closed, no reply), the last two with one warning line (warningOf).
 * QHOOKS_NO_FORWARD=1 turns it off.
 */
export async function forward(words: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (env.QHOOKS_NO_FORWARD === "1") return false;
  const args = parseForwardArgs(words);
  if (args === null) return false;
  const homeDir = homedir();
  const server = serverOf(homeDir);
  if (server === null || process.stdin.isTTY) return false;
  const stdin = await readAll(MAX_PAYLOAD_BYTES + 1);
  (globalThis as Record<symbol, unknown>)[STDIN_TAKEN] = stdin;
  if (stdin.length > MAX_PAYLOAD_BYTES) return false;
  const body = JSON.stringify(requestOf(args, env, homeDir, stdin.toString("utf8")));
  const outcome = await exchange(server, version(), body);
  const reply = outcome.kind === "answer" && outcome.status === 200 ? replyOf(outcome.body) : null;
  if (reply !== null) {
    process.exitCode = await say(reply);
    return true;
  }
  const warning = warningOf(outcome, server);
  if (warning !== null) process.stderr.write(`qhooks: warning: ${warning}\n`);
  return false;
}

/**
 * The one line a run judged here after all says, when that is not by design (no server, another version, 409): a
 * listener that did not prove the secret, or a server that took the run and then failed it. A server that had said
 * it was judging (`taken`) may have started the event's hooks: judged here too, they may run twice, which beats an
 * event not judged at all (docs/decisions.md).
 */
export function warningOf(outcome: Exchange, server: ForwardTarget): string | null {
  const where = `the server at 127.0.0.1:${server.port} (pid ${server.pid})`;
  switch (outcome.kind) {
    case "unreached":
    case "other":
      return null;
    case "unproven":
      return `the listener on 127.0.0.1:${server.port} did not prove it is qhooks serve (${outcome.why}); the secret was not sent, and this run is judged here`;
    case "answer":
      return outcome.status === 409 ? null : `${where} answered this run with HTTP ${outcome.status} and no reply to print; it is judged here`;
    case "lost": {
      const what = outcome.silent ? `said nothing for ${FORWARD_SILENCE_MS / 1000} s` : "closed the connection";
      return outcome.taken
        ? `${where} ${what} while judging this run; it is judged here again, so hooks the server had started may run twice`
        : `${where} ${what} before taking this run; it is judged here`;
    }
  }
}

/** What POST /run carries: the caller's command line, environment, place and stdin (server/schemas.ts). */
export function requestOf(args: ForwardArgs, env: NodeJS.ProcessEnv, homeDir: string, stdin: string): Record<string, unknown> {
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) strings[name] = value;
  return { version: version(), homeDir, cwd: process.cwd(), env: strings, ...args, stdin };
}

/** The server the state file names, when its pid is alive and the secret readable; null otherwise. */
function serverOf(homeDir: string): ForwardTarget | null {
  const paths = serverPaths(homeDir);
  try {
    const state = JSON.parse(readFileSync(paths.state, "utf8")) as { port?: unknown; pid?: unknown };
    if (typeof state.pid !== "number" || typeof state.port !== "number") return null;
    process.kill(state.pid, 0);
    // The secret as the server reads it: the user's own, open to no one else (server/token.ts).
    const stat = statSync(paths.token);
    if ((stat.mode & 0o077) !== 0 || (typeof process.getuid === "function" && stat.uid !== process.getuid())) return null;
    const token = readFileSync(paths.token, "utf8").trim();
    return token.length >= 32 ? { port: state.port, pid: state.pid, token } : null;
  } catch {
    return null;
  }
}

/** stdin, at most `limit` bytes (a writer that never stops is left to the CLI's limit error). */
function readAll(limit: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    const done = (): void => {
      process.stdin.removeListener("data", onData);
      process.stdin.pause();
      resolve(Buffer.concat(chunks, kept));
    };
    const onData = (chunk: Buffer): void => {
      const piece = chunk.subarray(0, limit - kept);
      chunks.push(piece);
      kept += piece.length;
      if (kept >= limit) done();
    };
    process.stdin.on("data", onData);
    process.stdin.once("end", done);
    process.stdin.once("error", done);
  });
}

/** A 200 answer's reply (server/schemas.ts's ForwardedReplySchema, checked by hand: no zod here); null otherwise. */
function replyOf(body: string): ForwardedReply | null {
  try {
    const r = JSON.parse(body) as Record<string, unknown>;
    const textOrNull = (v: unknown): boolean => v === null || typeof v === "string";
    if (typeof r.early !== "string" || !textOrNull(r.stdout) || !textOrNull(r.blockIfUndelivered) || !textOrNull(r.stderr)) return null;
    if (typeof r.exitCode !== "number" || !Number.isInteger(r.exitCode)) return null;
    return r as unknown as ForwardedReply;
  } catch {
    return null;
  }
}

/** The reply as `qhooks run` prints it, after what it said before it. */
function say(reply: ForwardedReply): Promise<number> {
  // As cli/main.ts for `run`: the exit status is the answer, whatever happens to stdout and stderr.
  process.stdout.on("error", () => undefined);
  process.stderr.on("error", () => undefined);
  if (reply.early !== "") process.stderr.write(reply.early);
  return sayReply(reply);
}
