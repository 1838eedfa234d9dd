import { messageOf } from "../errors.js";
import { judgeOnce } from "../engine/judgeOnce.js";
import type { EventName } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { nullEventLog } from "../store/eventLog.js";
import { oneLineText } from "../text/oneLine.js";
import { checkOutcome, type Problem } from "./checkOutcome.js";
import type { TestFileEntry } from "./testFile.js";

/** How one case went. */
export interface CaseResult {
  /** Its line in the test file. */
  readonly line: number;
  /** Null for a broken line that names nothing. */
  readonly name: string | null;
  readonly event: EventName | null;
  /** Empty: it passed. */
  readonly problems: readonly Problem[];
  /** What the pipeline decided; null when it did not come to an outcome. */
  readonly outcome: Outcome | null;
  readonly durationMs: number;
}

export const casePassed = (result: CaseResult): boolean => result.problems.length === 0;

export interface RunCasesOptions {
  readonly projectDir: string;
  readonly homeDir: string;
  /** `--settings` files; the settings levels of the project when empty. */
  readonly settingsFiles: readonly string[];
  readonly plugins: readonly string[];
  readonly dialect: Dialect;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly callChain: readonly string[];
}

/** The environment variable hooks see set to 1 when they run for a hook test. */
export const TEST_VAR = "QHOOKS_TEST";

/**
 * Judges each case, in file order, through the same pipeline as `qhooks run`, with the settings read fresh as a
 * live call would: hooks run for real, with QHOOKS_TEST=1 in their environment, and nothing is logged (the live log
 * stays as it is; the Stop-loop guard, which reads the log, stays out of it). Yields each result as it comes, with
 * the warnings met on the way.
 */
export async function* runCases(
  entries: readonly TestFileEntry[],
  options: RunCasesOptions,
): AsyncGenerator<{ result: CaseResult; warnings: readonly string[] }> {
  for (const entry of entries) {
    const started = performance.now();
    try {
      yield await judgeCase(entry, options);
    } catch (e) {
      // One case's failure is that case's result: the cases after it still run, and the report is still written.
      const base = entry.ok ? { name: entry.testCase.name, event: entry.testCase.event } : { name: entry.name, event: null };
      const problem: Problem = { kind: "internal", message: `qhooks failed on this case: ${oneLineText(messageOf(e), 200)}` };
      yield { result: { line: entry.line, ...base, problems: [problem], outcome: null, durationMs: performance.now() - started }, warnings: [] };
    }
  }
}

async function judgeCase(entry: TestFileEntry, options: RunCasesOptions): Promise<{ result: CaseResult; warnings: readonly string[] }> {
  if (!entry.ok) {
    return {
      result: { line: entry.line, name: entry.name, event: null, problems: [{ kind: "broken-line", message: entry.message }], outcome: null, durationMs: 0 },
      warnings: [],
    };
  }
  const { testCase } = entry;
  const base = { line: entry.line, name: testCase.name, event: testCase.event };
  const started = performance.now();
  const { judgement, configWarnings } = await judgeOnce({
    input: JSON.stringify(testCase.payload),
    event: testCase.event,
    projectDir: options.projectDir,
    homeDir: options.homeDir,
    settingsFiles: options.settingsFiles,
    plugins: options.plugins,
    dialect: options.dialect,
    log: nullEventLog,
    stopLoopGuard: false,
    env: { ...options.env, [TEST_VAR]: "1" },
    callChain: options.callChain,
  });
  const durationMs = performance.now() - started;
  if (judgement.kind === "failed") {
    return { result: { ...base, problems: [{ kind: "internal", message: judgement.error }], outcome: null, durationMs }, warnings: configWarnings };
  }
  if (judgement.kind === "rejected") {
    const problem: Problem = { kind: "rejected", message: `the payload was rejected: ${oneLineText(judgement.rejection.error, 200)}` };
    return { result: { ...base, problems: [problem], outcome: null, durationMs }, warnings: [...configWarnings, ...judgement.warnings] };
  }
  const { outcome } = judgement;
  const loop = stopLoopWarning(testCase.event, testCase.payload, outcome);
  return {
    result: { ...base, problems: checkOutcome(testCase.expect, outcome), outcome, durationMs },
    warnings: [...configWarnings, ...outcome.warnings, ...(loop === null ? [] : [loop])],
  };
}

/**
 * The Stop-loop guard stays out of hook tests (no log, no streak), and so does its warning. What a case can show is
 * the loop itself: a Stop hook that blocks although the payload says `stop_hook_active` (the agent is already
 * continuing because of a Stop hook) would keep the agent going, but for the guard.
 */
function stopLoopWarning(event: string, payload: unknown, outcome: { readonly blocked: boolean }): string | null {
  if ((event !== "Stop" && event !== "SubagentStop") || !outcome.blocked) return null;
  const active = typeof payload === "object" && payload !== null && (payload as Record<string, unknown>).stop_hook_active === true;
  return active
    ? `a ${event} hook blocks although stop_hook_active is true: live, it would keep the agent going until the Stop-loop guard lets it stop (qhooks.stopBlockCap)`
    : null;
}
