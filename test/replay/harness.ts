import { expect } from "chai";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createHookBus } from "../../src/engine/createHookBus.js";
import { recordEvent } from "../../src/engine/recordEvent.js";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { REPO_ROOT, type CliResult, type Sandbox } from "../support/sandbox.js";

/** One side of a replay comparison, as `qhooks replay --json` prints it (contract 8, "Replay JSON"). */
export interface Side {
  decision: string | null;
  blocked: boolean;
  reason: string | null;
  hooks: string[];
}

export interface Result {
  seq: number;
  event: string;
  sessionId: string;
  matchValue: string | null;
  before: Side;
  after: Side;
  changed: boolean;
  skipped: string | null;
}

export interface ReplayJson {
  runId: string;
  events: number;
  changed: number;
  newlyBlocked: number;
  newlyAllowed: number;
  skipped: number;
  hookErrors: number;
  timeouts: number;
  results: Result[];
}

/** A log record as `qhooks log --json` lists it, with the fields these tests read. */
export interface LogRow {
  seq: number;
  event: string;
  sessionId: string;
  decision: string;
  blocked: boolean;
  reason: string | null;
  matchValue: string | null;
  source: string;
  projectDir: string;
  payload: unknown;
  replay: { runId: string; of: number } | null;
  hooks: { name: string }[];
}

export const DEMO_DIR = join(REPO_ROOT, "demo");

/** The demo's recorded agent session, one payload per line, as the agent sent it. */
export const demoSession = (): string[] => readFileSync(join(DEMO_DIR, "session.jsonl"), "utf8").trim().split("\n");

/**
 * Copies the demo's hook scripts into the sandbox project (the demo settings call them as
 * `$QODERCN_PROJECT_DIR/demo/hooks/...`) and its two settings files into the sandbox root.
 */
export function installDemo(sb: Sandbox): { settings: string; stricter: string } {
  cpSync(join(DEMO_DIR, "hooks"), join(sb.project, "demo", "hooks"), { recursive: true });
  return {
    settings: sb.file("demo-settings.json", readFileSync(join(DEMO_DIR, "settings.json"), "utf8")),
    stricter: sb.file("stricter.json", readFileSync(join(DEMO_DIR, "stricter.json"), "utf8")),
  };
}

/** `qhooks run <event>` of one raw payload line, as an agent would call it; the event comes from the payload. */
export async function runLine(sb: Sandbox, line: string, args: readonly string[] = []): Promise<CliResult> {
  const event = (JSON.parse(line) as { hook_event_name: string }).hook_event_name;
  const r = await sb.run([...args, "run", event], { input: line });
  expect(r.code, `qhooks run ${event}: ${r.stderr}`).to.be.oneOf([0, 2]);
  return r;
}

/** `qhooks record` of one raw payload line. */
export async function recordLine(sb: Sandbox, line: string, args: readonly string[] = []): Promise<CliResult> {
  const r = await sb.run([...args, "record"], { input: line });
  expect(r.code, `qhooks record: ${r.stderr}`).to.equal(0);
  expect(r.stdout).to.equal("");
  return r;
}

/** Runs a CLI command that must succeed and print JSON. */
export async function cliJson<T>(sb: Sandbox, args: readonly string[]): Promise<T> {
  const r = await sb.run(args);
  expect(r.code, `qhooks ${args.join(" ")}: ${r.stderr}`).to.equal(0);
  return JSON.parse(r.stdout) as T;
}

/** `qhooks replay ... --json --yes` (runs its hooks without asking), which must succeed. */
export const replayJson = (sb: Sandbox, args: readonly string[]): Promise<ReplayJson> =>
  cliJson<ReplayJson>(sb, ["replay", ...args, ...(args.includes("--match-only") ? [] : ["--yes"]), "--json"]);

/** Every live event of the log, oldest first (the log lists newest first). */
export async function liveEvents(sb: Sandbox, args: readonly string[] = []): Promise<LogRow[]> {
  const rows = await cliJson<LogRow[]>(sb, ["log", "--json", "--limit", "100000", ...args]);
  return rows.reverse();
}

/** The one-line error of a command that must fail with exit 1. */
export function usageError(r: CliResult): string {
  expect(r.code, r.stderr).to.equal(1);
  expect(r.stderr.startsWith("qhooks: "), r.stderr).to.equal(true);
  expect(r.stderr.trimEnd().split("\n"), r.stderr).to.have.length(1);
  expect(r.stderr).not.to.match(/\n\s+at /);
  return r.stderr.trim();
}

/** A payload line for a PreToolUse Bash call. */
export function bashLine(sessionId: string, command: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ session_id: sessionId, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, ...extra });
}

/**
 * Captures events through the library, sequentially and into the sandbox's log: a bus (real hook processes, the
 * same pipeline as `qhooks run`) for payloads, `recordEvent` (what `qhooks record` does) for `{record: payload}`.
 * Cheaper than a CLI process per event, for tests whose subject is the replay, not the capture.
 */
export async function capture(
  sb: Sandbox,
  items: ReadonlyArray<string | { record: string }>,
  options: { projectDir?: string; settingsFiles?: string[] } = {},
): Promise<void> {
  const projectDir = options.projectDir ?? sb.project;
  const bus = createHookBus({
    projectDir,
    homeDir: sb.home,
    db: sb.db,
    watch: false,
    env: sb.env(),
    ...(options.settingsFiles ? { settingsFiles: options.settingsFiles } : {}),
  });
  const log = openSqliteLog(sb.db);
  try {
    for (const item of items) {
      if (typeof item === "string") await bus.dispatch(item);
      else {
        const r = await recordEvent({ input: item.record, projectDir, log });
        expect(r.ok, JSON.stringify(r)).to.equal(true);
      }
    }
  } finally {
    await bus.close();
    await log.close();
  }
}
