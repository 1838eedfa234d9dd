import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { expect } from "chai";
import type { Decision, EventName } from "../../src/schema/events.js";
import type { LogRecord } from "../../src/schema/logRecord.js";
import { OutcomeSchema, type HookResult, type Outcome } from "../../src/schema/outcome.js";
import type { EventEntry, EventSource } from "../../src/store/eventLog.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { CLI, type CliResult, type Sandbox } from "../support/sandbox.js";

/** Polls `check` until it returns a truthy value, or fails the test at the deadline. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 10_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `qhooks log --json` (plus filters) parsed; fails the test on a non-zero exit or output that is not JSON. */
export async function logJson(sb: Sandbox, args: readonly string[] = [], env: Record<string, string | undefined> = {}): Promise<LogRecord[]> {
  const r = await sb.run(["log", "--json", ...args], { env });
  expect(r.code, `qhooks log ${args.join(" ")}: ${r.stderr}`).to.equal(0);
  const parsed = JSON.parse(r.stdout) as LogRecord[];
  expect(parsed).to.be.an("array");
  return parsed;
}

/** The seqs `qhooks log --json <args>` lists, in its order. */
export async function logSeqs(sb: Sandbox, args: readonly string[]): Promise<number[]> {
  return (await logJson(sb, [...args, "--limit", "1000"])).map((r) => r.seq);
}

/** The `qhooks: ` lines of a stderr. */
export const qhooksLines = (stderr: string): string[] => stderr.split("\n").filter((l) => l.startsWith("qhooks: "));
export const nonEmptyLines = (text: string): string[] => text.split("\n").filter((l) => l.trim() !== "");

/** Runs the `sqlite3` command-line tool on a file, as a user tampering with the log would. */
export function sqlite3(file: string, sql: string): string {
  return execFileSync("sqlite3", [file, sql], { encoding: "utf8" });
}

/** A read-only look at the file, independent of qhooks' own reading code. */
export function readOnly<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

export const journalCount = (file: string): number => readOnly(file, (db) => (db.prepare("SELECT count(*) AS n FROM journal").get() as { n: number }).n);

/** A process started without waiting for it: for kill tests and concurrent runs. Killed by `stop()` if still alive. */
export interface Started {
  readonly child: ChildProcessWithoutNullStreams;
  readonly done: Promise<CliResult>;
  stop(): void;
}

export function startCli(sb: Sandbox, args: readonly string[], input: string, env: Record<string, string | undefined> = {}): Started {
  const start = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], { cwd: sb.project, env: sb.env(env), stdio: ["pipe", "pipe", "pipe"] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (c: Buffer) => stdout.push(c));
  child.stderr.on("data", (c: Buffer) => stderr.push(c));
  child.stdin.on("error", () => undefined);
  child.stdin.end(input);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code, signal, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8"), ms: performance.now() - start }),
    );
  });
  return {
    child,
    done,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** Whether a process is running (a zombie nobody reaped yet counts as dead). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return existsSync(`/proc/${pid}`);
  }
}

export function killQuietly(pid: number | null | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding a log through the library's own append path, with controlled times and outcomes.

export interface SeedHook {
  readonly name: string;
  readonly command?: string | null;
  readonly outcome?: HookResult["outcome"];
  readonly decision?: Decision;
  readonly durationMs?: number;
  readonly reason?: string | null;
  /** Its settings level: `project` unless said. */
  readonly level?: string;
}

export interface SeedEvent {
  readonly ts: Date;
  readonly event: EventName;
  readonly sessionId: string | null;
  readonly matchValue?: string | null;
  readonly payload?: Record<string, unknown> | string;
  readonly source?: EventSource;
  /** A judged event's decision; `recorded`, `rejected` and `unfinished` make events that were never judged. */
  readonly decision: Decision | "recorded" | "rejected" | "unfinished";
  readonly reason?: string | null;
  readonly hooks?: readonly SeedHook[];
  readonly projectDir?: string;
  readonly systemMessages?: string[];
}

const BLOCKING: readonly string[] = ["deny", "block"];

/** A complete outcome (validated against the outcome schema, so seeded rows look like the engine's own). */
export function makeOutcome(e: SeedEvent): Outcome {
  const decision = e.decision as Decision;
  const hooks: HookResult[] = (e.hooks ?? []).map((h) => {
    const outcome = h.outcome ?? (BLOCKING.includes(h.decision ?? "none") ? "block" : "success");
    return {
      name: h.name,
      command: h.command === undefined ? h.name : h.command,
      level: h.level ?? "project",
      matcher: null,
      outcome,
      decision: h.decision ?? "none",
      reason: h.reason ?? null,
      error: outcome === "error" ? "failed" : null,
      exitCode: outcome === "block" ? 2 : outcome === "error" ? 1 : outcome === "timeout" ? null : 0,
      signal: outcome === "timeout" ? "SIGTERM" : null,
      timedOut: outcome === "timeout",
      durationMs: h.durationMs ?? 5,
      stdout: "",
      stderr: h.reason ?? "",
      truncated: false,
    };
  });
  return OutcomeSchema.parse({
    event: e.event,
    sessionId: e.sessionId ?? "",
    seq: null,
    decision,
    blocked: BLOCKING.includes(decision),
    reason: e.reason ?? null,
    continue: true,
    stopReason: null,
    systemMessages: e.systemMessages ?? [],
    additionalContext: [],
    updatedInput: null,
    suppressOutput: false,
    configHash: "seeded-config",
    durationMs: hooks.reduce((m, h) => Math.max(m, h.durationMs), 1),
    hooks,
    warnings: [],
  });
}

/**
 * Appends events through `EventLog.append` (the path `qhooks run` and `record` use), arrival and outcome in two
 * transactions as the engine does when hooks ran. Returns each event's seq.
 */
export async function seedLog(file: string, events: readonly SeedEvent[], projectDir = "/seeded/project"): Promise<number[]> {
  const log = openSqliteLog(file);
  const seqs: number[] = [];
  try {
    for (const e of events) {
      const payload = e.payload ?? { session_id: e.sessionId, hook_event_name: e.event };
      const entry: EventEntry = {
        kind: "event",
        ts: e.ts,
        source: e.source ?? (e.decision === "recorded" ? "record" : "dispatch"),
        event: e.event,
        sessionId: e.sessionId,
        matchValue: e.matchValue ?? null,
        projectDir: e.projectDir ?? projectDir,
        payload: typeof payload === "string" ? payload : JSON.stringify(payload),
        snapshot: e.decision === "recorded" || e.decision === "rejected" ? null : { hash: "seeded-config", document: [], warnings: [] },
        rejection: e.decision === "rejected" ? (e.reason ?? "invalid payload") : null,
        replay: null,
        outcome: null,
      };
      const [seq] = await log.append([entry]);
      seqs.push(seq!);
      if (e.decision !== "recorded" && e.decision !== "rejected" && e.decision !== "unfinished") {
        await log.append([{ kind: "outcome", ts: e.ts, eventSeq: seq!, outcome: { ...makeOutcome(e), seq: seq! } }]);
      }
    }
  } finally {
    await log.close();
  }
  return seqs;
}

export const minutesAgo = (n: number, now = Date.now()): Date => new Date(now - n * 60_000);

/** Maps with at most `limit` promises in flight: CLI calls that do not depend on each other, without a fork bomb. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Record `i` of a run of recorded PreToolUse events a second apart (one record each), for tests of the chain. */
export const recordedEvent = (i: number): EventEntry => ({
  kind: "event",
  ts: new Date(Date.parse("2026-03-01T00:00:00Z") + i * 1000),
  source: "record",
  event: "PreToolUse",
  sessionId: "s",
  matchValue: "Bash",
  projectDir: "/p",
  payload: JSON.stringify({ session_id: "s", i }),
  snapshot: null,
  rejection: null,
  replay: null,
  outcome: null,
});
