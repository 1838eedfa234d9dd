import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { CLI, type Sandbox } from "../support/sandbox.js";

/** A `qhooks serve` in the foreground, as a real process of the sandbox. */
export interface ForegroundServer {
  readonly child: ChildProcess;
  readonly port: number;
  readonly token: string;
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>;
}

export const tokenOf = (sb: Sandbox): string => readFileSync(join(sb.home, ".qhooks", "server", "token"), "utf8").trim();

export function startServer(sb: Sandbox, args: readonly string[] = ["--port", "0"], env: Record<string, string | undefined> = {}): Promise<ForegroundServer> {
  const child = spawn(process.execPath, [CLI, "serve", ...args], { cwd: sb.root, env: sb.env(env), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no server after 10 s: ${stderr}`)), 10_000);
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), token: tokenOf(sb), stderr: () => stderr, exited });
      }
    });
    void exited.then((code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
  });
}

/**
 * The server's stderr once `done` holds of it, or as it is after `timeoutMs`: a line the server writes before it
 * answers can still be in the pipe when the answer has arrived, so a test waits for it rather than reading at once.
 */
export async function stderrWhen(server: ForegroundServer, done: (stderr: string) => boolean, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!done(server.stderr()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return server.stderr();
}

export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One real HTTP request to the server, the way Claude Code posts an http hook unless `headers` say otherwise. */
export function post(
  port: number,
  path: string,
  body: string | object,
  headers: Record<string, string | undefined> = {},
  method = "POST",
): Promise<HttpResult> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const all: Record<string, string> = { Host: `127.0.0.1:${port}`, "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(text)) };
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete all[k];
    else all[k] = v;
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(method === "GET" ? undefined : text);
  });
}

export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
