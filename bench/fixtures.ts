import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, from dist/bench/. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CLI = join(REPO_ROOT, "dist", "bin", "qhooks.cjs");
/** Git-ignored: the cached 1,000,000-event log and latest.json. */
export const RESULTS_DIR = join(REPO_ROOT, "bench", "results");

/** A deterministic PRNG (mulberry32), so that generated logs are the same on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILLER = "abcdefghijklmnopqrstuvwxyz0123456789 /-_.".repeat(64);

/**
 * A PreToolUse payload as Claude Code sends it, about `size` bytes of JSON (1 KB by default, the size the
 * architecture guide's measurements use).
 */
export function preToolUsePayload(options: { sessionId?: string; tool?: string; size?: number; n?: number } = {}): string {
  const base = {
    session_id: options.sessionId ?? "bench-session-0001",
    transcript_path: "/home/dev/.claude/projects/-home-dev-project/bench-session-0001.jsonl",
    cwd: "/home/dev/project",
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: options.tool ?? "Bash",
    tool_input: { command: "", description: "List the build directory and check the artefacts" },
    tool_use_id: `toolu_01${String(options.n ?? 0).padStart(22, "0")}`,
  };
  const room = Math.max(0, (options.size ?? 1024) - JSON.stringify(base).length);
  base.tool_input.command = `ls -la build && ${FILLER}`.slice(0, room);
  return JSON.stringify(base);
}

/** A temporary HOME, project directory and settings files; removed by `dispose()`. */
export class BenchDir {
  readonly root: string;
  readonly home: string;
  readonly project: string;

  constructor(label: string) {
    this.root = mkdtempSync(join(tmpdir(), `qhooks-bench-${label}-`));
    this.home = join(this.root, "home");
    this.project = join(this.root, "project");
    mkdirSync(this.home);
    mkdirSync(this.project);
  }

  path(name: string): string {
    return join(this.root, name);
  }

  /** A settings file with these PreToolUse hooks (each `{matcher, command}`), returned as an absolute path. */
  settings(name: string, hooks: ReadonlyArray<{ matcher?: string; command: string }>): string {
    const file = join(this.root, "settings", `${name}.json`);
    mkdirSync(dirname(file), { recursive: true });
    const groups = hooks.map((h) => ({ ...(h.matcher ? { matcher: h.matcher } : {}), hooks: [{ type: "command", command: h.command }] }));
    writeFileSync(file, JSON.stringify({ hooks: { PreToolUse: groups } }, null, 2));
    return file;
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The environment hooks and CLI children get: the bench's own, with HOME pointed at the sandbox. */
export function benchEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("QHOOKS_")) env[k] = v;
  env.HOME = home;
  return env;
}

/** The floor of cases 2, 3 and 6: `/bin/sh -c <command>` with the payload piped to stdin, output read, until closed. */
export function rawSpawn(payload: string, command = "true"): Promise<number | null> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "pipe", "pipe"] });
    child.on("error", reject);
    child.stdin.on("error", () => undefined);
    child.stdout.on("data", () => undefined);
    child.stderr.on("data", () => undefined);
    child.stdin.end(payload);
    child.on("close", (code) => resolvePromise(code));
  });
}

/** `count` raw spawns, at most `concurrency` at a time (the floor of replay with hooks). */
export async function rawSpawnPool(payload: string, count: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      await rawSpawn(payload);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export interface ChildResult {
  readonly code: number | null;
  readonly ms: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a process to its end with `input` on stdin; the time is spawn to close. */
export function runChild(
  command: string,
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string; stdout?: "pipe" | "ignore" } = {},
): Promise<ChildResult> {
  return new Promise((resolvePromise, reject) => {
    const start = performance.now();
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ["pipe", options.stdout ?? "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.on("error", reject);
    child.stdout?.on("data", (c: Buffer) => out.push(c));
    child.stderr!.on("data", (c: Buffer) => err.push(c));
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(options.input ?? "");
    child.on("close", (code) =>
      resolvePromise({ code, ms: performance.now() - start, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") }),
    );
  });
}
