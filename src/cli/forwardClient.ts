import { readFileSync, statSync } from "node:fs";
import { connect } from "node:net";
import { homedir } from "node:os";
import { MAX_PAYLOAD_BYTES } from "../payload/payloadLimit.js";
import { serverPaths } from "../server/paths.js";
import { parseForwardArgs, type ForwardArgs } from "./forwardArgs.js";
import type { ForwardedReply } from "../server/schemas.js";
import { STDIN_TAKEN } from "./io.js";
import { sayReply } from "./sayReply.js";
import { version } from "./version.js";

/**
 * `qhooks run --format hook` handed to the user's running `qhooks serve` (POST /run), which judges it as this process
 * would, warm: no CLI bundle to load, no log to open. Bundled on its own (dist/bin/forward.cjs) and loaded by
 * bin.cts before the CLI: it reads only the state file, the secret and stdin, and speaks HTTP over a plain socket.
 * Any doubt gives false, and the CLI judges the run in this process, with stdin as read here (STDIN_TAKEN): no
 * server, a stale pid, an option it does not know, a server of another version, home or log (409), a refused
 * secret, an error or a connection that fails. QHOOKS_NO_FORWARD=1 turns it off.
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
  const answer = await post(server.port, server.token, body);
  const reply = answer === null ? null : replyOf(answer);
  if (reply === null) return false;
  process.exitCode = await say(reply);
  return true;
}

/** What POST /run carries: the caller's command line, environment, place and stdin (server/schemas.ts). */
export function requestOf(args: ForwardArgs, env: NodeJS.ProcessEnv, homeDir: string, stdin: string): Record<string, unknown> {
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) strings[name] = value;
  return { version: version(), homeDir, cwd: process.cwd(), env: strings, ...args, stdin };
}

/** The server the state file names, when its pid is alive and the secret readable; null otherwise. */
function serverOf(homeDir: string): { readonly port: number; readonly token: string } | null {
  const paths = serverPaths(homeDir);
  try {
    const state = JSON.parse(readFileSync(paths.state, "utf8")) as { port?: unknown; pid?: unknown };
    if (typeof state.pid !== "number" || typeof state.port !== "number") return null;
    process.kill(state.pid, 0);
    // The secret as the server reads it: the user's own, open to no one else (server/token.ts).
    const stat = statSync(paths.token);
    if ((stat.mode & 0o077) !== 0 || (typeof process.getuid === "function" && stat.uid !== process.getuid())) return null;
    const token = readFileSync(paths.token, "utf8").trim();
    return token.length >= 32 ? { port: state.port, token } : null;
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

/** How long connecting may take: nothing has been sent yet, so giving up costs only the in-process run. */
const CONNECT_TIMEOUT_MS = 1000;

/**
 * POST /run over a plain socket (node:http costs more start-up than the round trip); the status and body, or null
 * when the connection fails or the answer is not HTTP. Once the run is sent, the answer is waited for as long as the
 * server takes: its hooks have their own timeouts, and the host has one for this process.
 */
export function post(port: number, token: string, body: string): Promise<{ readonly status: number; readonly body: string } | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), CONNECT_TIMEOUT_MS);
    socket.once("connect", () => {
      clearTimeout(timer);
      const head =
        `POST /run HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
      socket.write(head + body);
    });
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.once("error", () => undefined);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    });
  });
}

/** An HTTP/1.1 answer with a Content-Length (the server's): its status and body; null when incomplete or not one. */
export function parseResponse(raw: Buffer): { readonly status: number; readonly body: string } | null {
  const end = raw.indexOf("\r\n\r\n");
  if (end === -1) return null;
  const head = raw.subarray(0, end).toString("latin1");
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(head);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (status === null || length === null) return null;
  const body = raw.subarray(end + 4);
  if (body.length !== Number(length[1])) return null;
  return { status: Number(status[1]), body: body.toString("utf8") };
}

/** A 200 answer's reply (server/schemas.ts's ForwardedReplySchema, checked by hand: no zod here); null otherwise. */
function replyOf(answer: { readonly status: number; readonly body: string }): ForwardedReply | null {
  if (answer.status !== 200) return null;
  try {
    const r = JSON.parse(answer.body) as Record<string, unknown>;
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
