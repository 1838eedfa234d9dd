import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EventName } from "../src/schema/events.js";
import type { HookResult, Outcome } from "../src/schema/outcome.js";
import type { EventEntry, SnapshotRecord } from "../src/store/eventLog.js";
import { SCHEMA_VERSION } from "../src/store/sqlite/migrations.js";
import { openSqliteLog } from "../src/store/sqlite/sqliteEventLog.js";
import { progress } from "./harness.js";
import { prng, RESULTS_DIR } from "./fixtures.js";

/** Bump when the generated content changes, so that cached logs are rebuilt. */
const GENERATOR_VERSION = 1;
/** Entries per `append` call while building: one transaction each. */
export const BUILD_BATCH = 5_000;

const SNAPSHOT: SnapshotRecord = {
  hash: "b".repeat(64),
  document: [
    {
      level: "user",
      file: "/home/dev/.qoder-cn/settings.json",
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "~/.qoder-cn/hooks/bash-guard.sh" }] }] },
    },
  ],
  warnings: [],
};

const PROJECTS = ["/home/dev/api", "/home/dev/web", "/home/dev/infra", "/home/dev/docs", "/home/dev/ml"];
const TOOLS: ReadonlyArray<readonly [string, number]> = [
  ["Bash", 0.4],
  ["Read", 0.25],
  ["Edit", 0.15],
  ["Grep", 0.1],
  ["Write", 0.05],
  ["mcp__github__create_issue", 0.05],
];
const TEXT = "The quick brown fox jumps over the lazy dog; npm run build && npm test -- --grep 'log' | tee out.txt\n".repeat(40);

/**
 * A synthetic but plausible history: sessions of 200 to 1,800 events (SessionStart, then prompts, each followed by
 * tool calls as PreToolUse/PostToolUse pairs, then Stop, and SessionEnd), payloads of about 1 KB on average, a
 * Bash guard hook on PreToolUse Bash (3% denied) and a format check on PostToolUse Edit|Write.
 */
export function* generateEntries(count: number, seed = 42): Generator<EventEntry> {
  const rnd = prng(seed);
  const text = (min: number, max: number) => {
    const n = min + Math.floor(rnd() * (max - min));
    const start = Math.floor(rnd() * 200);
    return TEXT.slice(start, start + n);
  };
  const pickTool = () => {
    let r = rnd();
    for (const [tool, weight] of TOOLS) if ((r -= weight) < 0) return tool;
    return "Bash";
  };
  let t = Date.UTC(2025, 0, 1);
  let emitted = 0;
  for (let s = 0; emitted < count; s++) {
    const sessionId = `sess-${String(s).padStart(6, "0")}-${Math.floor(rnd() * 0xffffffff)
      .toString(16)
      .padStart(8, "0")}`;
    const projectDir = PROJECTS[s % PROJECTS.length]!;
    const length = 200 + Math.floor(rnd() * 1600);
    const common = { session_id: sessionId, transcript_path: `/home/dev/.claude/projects/${sessionId}.jsonl`, cwd: projectDir };
    let inSession = 0;
    const make = (event: EventName, fields: Record<string, unknown>, matchValue: string | null, hooks: HookResult[]): EventEntry => {
      t += 200 + Math.floor(rnd() * 4000);
      emitted++;
      inSession++;
      const ts = new Date(t);
      const blocked = hooks.some((h) => h.outcome === "block");
      const decision = blocked ? (event === "PreToolUse" ? "deny" : "block") : hooks.length && event === "PreToolUse" ? "allow" : "none";
      const outcome: Outcome = {
        event,
        sessionId,
        seq: null,
        decision,
        blocked,
        reason: blocked ? hooks.find((h) => h.outcome === "block")!.reason : null,
        continue: true,
        stopReason: null,
        systemMessages: [],
        additionalContext: [],
        updatedInput: null,
        suppressOutput: false,
        configHash: SNAPSHOT.hash,
        durationMs: 0.2 + hooks.reduce((a, h) => a + h.durationMs, 0),
        hooks,
        skipped: [],
        env: {},
        warnings: [],
      };
      return {
        kind: "event",
        ts,
        source: "dispatch",
        event,
        sessionId,
        matchValue,
        projectDir,
        payload: JSON.stringify({ ...common, permission_mode: "default", hook_event_name: event, ...fields }),
        snapshot: SNAPSHOT,
        rejection: null,
        replay: null,
        outcome,
      };
    };
    const hook = (name: string, block: boolean): HookResult => ({
      name,
      command: `~/.qoder-cn/hooks/${name}.sh`,
      level: "user",
      matcher: "Bash",
      outcome: block ? "block" : "success",
      decision: block ? "deny" : "allow",
      reason: block ? "Dangerous command blocked: rm -rf outside the project" : null,
      error: null,
      exitCode: block ? 2 : 0,
      signal: null,
      timedOut: false,
      durationMs: 2 + rnd() * 30,
      stdout: "",
      stderr: block ? "Dangerous command blocked: rm -rf outside the project" : "",
      truncated: false,
    });

    yield make("SessionStart", { source: "startup", model: "claude-sonnet" }, "startup", []);
    while (inSession < length - 1 && emitted < count) {
      yield make("UserPromptSubmit", { prompt: text(40, 800) }, null, []);
      const calls = 1 + Math.floor(rnd() * 12);
      for (let c = 0; c < calls && emitted < count; c++) {
        const tool = pickTool();
        const toolUseId = `toolu_${emitted.toString(36).padStart(20, "0")}`;
        const toolInput =
          tool === "Bash"
            ? { command: text(20, 600), description: text(10, 80) }
            : tool === "Edit" || tool === "Write"
              ? { file_path: `${projectDir}/src/module${emitted % 97}.ts`, old_string: text(50, 900), new_string: text(50, 900) }
              : { file_path: `${projectDir}/src/module${emitted % 97}.ts`, pattern: text(5, 40) };
        const preHooks = tool === "Bash" ? [hook("bash-guard", rnd() < 0.03)] : [];
        yield make("PreToolUse", { tool_name: tool, tool_input: toolInput, tool_use_id: toolUseId }, tool, preHooks);
        if (emitted >= count) break;
        if (preHooks.some((h) => h.outcome === "block")) continue;
        const postHooks = tool === "Edit" || tool === "Write" ? [{ ...hook("format-check", false), matcher: "Edit|Write", decision: "none" as const }] : [];
        yield make(
          "PostToolUse",
          { tool_name: tool, tool_input: toolInput, tool_response: { stdout: text(20, 1600), exit_code: 0 }, tool_use_id: toolUseId },
          tool,
          postHooks,
        );
      }
      if (emitted < count) yield make("Stop", { stop_hook_active: false, last_assistant_message: text(20, 300) }, null, []);
    }
    if (emitted < count) yield make("SessionEnd", { reason: "exit" }, "exit", []);
    t += 3_600_000;
  }
}

/**
 * Appends `count` generated events to a new log at `path`, `BUILD_BATCH` per `append`; returns events/s of the
 * appends alone (generating the entries is not counted).
 */
export async function writeLog(path: string, count: number, onBatch?: (done: number) => void): Promise<number> {
  const log = openSqliteLog(path);
  let appending = 0;
  try {
    let batch: EventEntry[] = [];
    let done = 0;
    const flush = async () => {
      const start = performance.now();
      await log.append(batch);
      appending += performance.now() - start;
      done += batch.length;
      batch = [];
      onBatch?.(done);
    };
    for (const entry of generateEntries(count)) {
      batch.push(entry);
      if (batch.length === BUILD_BATCH) await flush();
    }
    if (batch.length) await flush();
  } finally {
    await log.close();
  }
  return (count * 1000) / appending;
}

export interface BigLog {
  readonly path: string;
  readonly events: number;
  readonly bytes: number;
  /** Events/s of the build, through the store (when it was built, possibly in an earlier run). */
  readonly buildRate: number;
  readonly cached: boolean;
}

/**
 * The audit log of cases 5 and 7, cached under bench/results/ by size, schema version and generator version, so
 * that later runs reuse it (a 1,000,000-event build takes tens of seconds).
 */
export async function ensureBigLog(events: number): Promise<BigLog> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `log-${events}-schema${SCHEMA_VERSION}-gen${GENERATOR_VERSION}.db`);
  const meta = `${path}.json`;
  if (existsSync(path) && existsSync(meta)) {
    const info = JSON.parse(readFileSync(meta, "utf8")) as { buildRate: number; bytes: number };
    return { path, events, bytes: info.bytes, buildRate: info.buildRate, cached: true };
  }
  const building = `${path}.building`;
  for (const f of [building, `${building}-wal`, `${building}-shm`, meta]) rmSync(f, { force: true });
  progress(`building a ${events.toLocaleString("en")}-event log (cached in ${path} for later runs)...`);
  let shown = 0;
  const buildRate = await writeLog(building, events, (done) => {
    if (done - shown >= 100_000) {
      shown = done;
      progress(`  ${done.toLocaleString("en")} events`);
    }
  });
  // The audits read projections, which a reader brings up to date first: done here once, so that the cached log is
  // ready and no query case pays for it (case 5f measures that catch-up on its own).
  progress("  bringing its projections up to date...");
  const reader = openSqliteLog(building, { mustExist: true });
  await reader.count({});
  await reader.close();
  const bytes = statSync(building).size;
  renameSync(building, path);
  writeFileSync(
    meta,
    JSON.stringify({ events, bytes, buildRate, schema: SCHEMA_VERSION, generator: GENERATOR_VERSION, builtAt: new Date().toISOString() }, null, 2),
  );
  return { path, events, bytes, buildRate, cached: false };
}

/** Size of a log file with its WAL, if any. */
export function logBytes(path: string): number {
  const size = (p: string) => (existsSync(p) ? statSync(p).size : 0);
  return size(path) + size(`${path}-wal`);
}
