import type { Dialect } from "../../hosts/hostDialect.js";
import { hostDialect } from "../../hosts/hosts.js";
import { catchError, defer, finalize, forkJoin, from, map, mergeMap, of, type Observable } from "rxjs";
import { oneLineText } from "../../text/oneLine.js";
import { CappedOutput, DEFAULT_MAX_EVENT_OUTPUT_BYTES, OutputBudget } from "../../exec/cappedOutput.js";
import { hookEnvironment } from "../../exec/hookEnvironment.js";
import { runnerFor } from "../../exec/runners/index.js";
import { commandRunner } from "../../exec/runners/commandRunner.js";
import { messageOf } from "../../errors.js";
import type { BackgroundRunner } from "../../handlers/backgroundHooks.js";
import { createEnvFile } from "../../handlers/envFile.js";
import type { EnvFileProblem } from "../../core/envFileProblem.js";
import type { HandlerServices } from "../../core/services.js";
import type { ValidEvent } from "../../payload/parsePayload.js";
import { interpretRun } from "../../core/readRun.js";
import { raceTimeout } from "../raceTimeout.js";
import type { HookRun, JudgedHook } from "../../core/hookRun.js";
import type { Matched, Ran, Recorded } from "../stages.js";
import { line, type PipelineWarning } from "../../core/warnings.js";
import type { SelectedHook } from "../../core/hookDescriptor.js";

export interface RunHooksOptions {
  readonly projectDir: string;
  readonly homeDir: string;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Cap of each stream of each hook (QHOOKS_MAX_OUTPUT). */
  readonly maxOutputBytes: number;
  /** Cap of what all the hooks of one event keep in all (QHOOKS_MAX_EVENT_OUTPUT); DEFAULT_MAX_EVENT_OUTPUT_BYTES if absent. */
  readonly maxEventOutputBytes?: number;
  /** Replays set QHOOKS_REPLAY=1 for their hooks. */
  readonly replay: boolean;
  readonly callChain: readonly string[];
  /** The evaluator of `prompt`/`agent` hooks and the caller of `mcp_tool` hooks, when the embedder gives them. */
  readonly services?: HandlerServices;
  /** Where `async: true` hooks run; without it they are not started. */
  readonly background?: BackgroundRunner;
  /**
   * Replays: a hook this gives a run for is not run; the run given is read as its own would be (`qhooks.replay.stub`,
   * for hooks whose side effects must not happen again).
   */
  readonly stub?: (spec: SelectedHook) => HookRun | undefined;
  /**
   * The host whose payloads arrive (their event names) and whose hooks answer in its shape (Gemini CLI's
   * `decision: "deny"`); qhooks' own names and Claude Code's shape when absent.
   */
  readonly dialect?: Dialect | undefined;
}

/** What running the hooks of one event gives, before it is joined with the event's record (joinGroup). */
export interface HookGroup {
  readonly judged: readonly JudgedHook[];
  readonly warnings: readonly PipelineWarning[];
  /** What SessionStart hooks wrote to $CLAUDE_ENV_FILE. */
  readonly env?: Readonly<Record<string, string>>;
}

const NO_HOOKS: HookGroup = { judged: [], warnings: [] };

/** The event as recorded, with its hooks' results: what aggregateOutcome folds. */
export const joinGroup = (recorded: Recorded, group: HookGroup): Ran => ({
  ...recorded,
  judged: group.judged,
  env: group.env,
  warnings: group.warnings.length === 0 ? recorded.warnings : [...recorded.warnings, ...group.warnings],
});

/** The hooks' environment for one event: the same for each of its hooks but for the command itself. */
function environmentOf(matched: Matched, options: RunHooksOptions): (command: string) => Record<string, string> {
  return hookEnvironment({
    baseEnv: options.baseEnv,
    projectDir: options.projectDir,
    homeDir: options.homeDir,
    event: matched.valid.event,
    sessionId: matched.valid.sessionId,
    replay: options.replay,
    callChain: options.callChain,
  });
}

/** Starts the event's `async: true` hooks, once its arrival is recorded (their results are logged against it). */
export function startBackground(recorded: Recorded, options: RunHooksOptions): void {
  if (!recorded.background?.length) return;
  const envFor = environmentOf(recorded, options);
  for (const spec of recorded.background)
    options.background?.start(recorded.seq, recorded.valid, spec, runOneHook(spec, recorded.valid, envFor, options), recorded.snapshot.redactor);
}

/**
 * Runs the event's hooks (not its async ones) in parallel, each raced against its own timeout. With a `gate`, the
 * hooks are started at once but none runs before it resolves: a command's process is spawned and waits at the
 * first line of its script, so that starting it overlaps with whatever the gate waits for (the arrival's commit).
 */
export function runHookGroup(matched: Matched, options: RunHooksOptions, gate?: PromiseLike<unknown>): Observable<HookGroup> {
  if (matched.hooks.length === 0) return of(NO_HOOKS);
  return defer(() => {
    const envFor = environmentOf(matched, options);
    return matched.valid.event === "SessionStart" ? withEnvFile(matched, envFor, options, gate) : runAll(matched, envFor, options, gate);
  });
}

/**
 * SessionStart: the hooks get $CLAUDE_ENV_FILE, a file to append `export K=V` lines to; once they have all ended,
 * the variables go into the outcome (`env`), for the agent to set in the session's commands.
 */
function withEnvFile(
  matched: Matched,
  envFor: (command: string) => Record<string, string>,
  options: RunHooksOptions,
  gate: PromiseLike<unknown> | undefined,
): Observable<HookGroup> {
  return defer(() => {
    const file = createEnvFile();
    if ("error" in file)
      return runAll(matched, envFor, options, gate).pipe(map((group) => ({ ...group, warnings: [...group.warnings, envFileWarning(file.error)] })));
    return runAll(matched, (command) => ({ ...envFor(command), CLAUDE_ENV_FILE: file.path }), options, gate).pipe(
      map((group) => {
        const read = file.read();
        return { ...group, env: read.env, warnings: [...group.warnings, ...read.problems.map(envFileWarning)] };
      }),
      finalize(() => file.remove()),
    );
  });
}

const envFileWarning = (problem: EnvFileProblem): PipelineWarning => ({ kind: "env-file", problem });

function runAll(
  matched: Matched,
  envFor: (command: string) => Record<string, string>,
  options: RunHooksOptions,
  gate: PromiseLike<unknown> | undefined,
): Observable<HookGroup> {
  return defer(() => {
    const total = options.maxEventOutputBytes ?? DEFAULT_MAX_EVENT_OUTPUT_BYTES;
    const budget = new OutputBudget(total, 2 * matched.hooks.filter((h) => h.kind !== "in-process").length);
    const runs = matched.hooks.map((spec) => runOneHook(spec, matched.valid, envFor, options, budget, gate));
    return forkJoin(runs).pipe(
      map((judged): HookGroup => {
        const cut = budget.cutStreams;
        if (cut.length === 0) return { judged, warnings: [] };
        const dropped = cut.reduce((sum, o) => sum + o.droppedBytes, 0);
        const warning =
          `the hooks of this event printed more than the ${total} bytes an event keeps (QHOOKS_MAX_EVENT_OUTPUT): ` +
          `${dropped} bytes of ${cut.length} stream${cut.length === 1 ? "" : "s"} dropped (each stream kept at least its first ${budget.reserve} bytes; decisions and exit codes are unaffected)`;
        return { judged, warnings: [line(warning)] };
      }),
    );
  });
}

/**
 * One hook, from start to its judged result; unsubscribing kills it. Whatever goes wrong with this one hook (its
 * process cannot start, its handler returns something unreadable, a bug) is this hook's error, never the event's:
 * the other hooks' decisions, a block among them, still make the outcome.
 */
export function runOneHook(
  spec: SelectedHook,
  valid: ValidEvent,
  envFor: (command: string) => Record<string, string>,
  options: Pick<RunHooksOptions, "projectDir" | "maxOutputBytes" | "services" | "stub" | "dialect">,
  budget: OutputBudget | null = null,
  gate?: PromiseLike<unknown>,
): Observable<JudgedHook> {
  return defer(() => {
    const clock = { start: performance.now() };
    return judgeOneHook(spec, valid, envFor, options, budget, clock, gate).pipe(
      catchError((e: unknown) =>
        of(interpretRun(valid.event, spec, { type: "spawn-error", message: `internal error: ${messageOf(e)}`, durationMs: performance.now() - clock.start })),
      ),
    );
  });
}

function judgeOneHook(
  spec: SelectedHook,
  valid: ValidEvent,
  envFor: (command: string) => Record<string, string>,
  options: Pick<RunHooksOptions, "projectDir" | "maxOutputBytes" | "services" | "stub" | "dialect">,
  budget: OutputBudget | null,
  clock: { start: number },
  gate: PromiseLike<unknown> | undefined,
): Observable<JudgedHook> {
  return defer(() => {
    const stubbed = options.stub?.(spec);
    const readOutput = outputReader(options.dialect, valid);
    if (stubbed !== undefined) return of(interpretRun(valid.event, spec, stubbed, readOutput));
    const elapsed = () => performance.now() - clock.start;
    const stdout = new CappedOutput(options.maxOutputBytes, budget);
    const stderr = new CappedOutput(options.maxOutputBytes, budget);
    const output = () => ({ stdout: stdout.text(), stderr: stderr.text(), truncated: stdout.truncated || stderr.truncated });

    const env = spec.kind === "in-process" ? {} : { ...envFor(spec.command), ...spec.env };
    const runner = runnerFor(spec);
    const request = { spec, valid, env, projectDir: options.projectDir, stdout, stderr, elapsed, services: options.services ?? {} };
    // A hook's time (its duration, its timeout) starts when it may run, not while it waits at the gate.
    const opened = gate === undefined ? undefined : Promise.resolve(gate).then(() => void (clock.start = performance.now()));
    const run$ =
      opened === undefined
        ? runner(request)
        : // A command is spawned now and waits at the first line of its script; any other hook starts once open.
          runner === commandRunner
          ? runner({ ...request, gate: opened })
          : from(opened).pipe(mergeMap(() => runner(request)));

    return run$.pipe(
      raceTimeout(spec.timeoutMs, ({ limitMs, elapsedMs }): HookRun => ({ type: "timeout", limitMs, durationMs: elapsedMs, ...output() }), undefined, opened),
      map((run) => interpretRun(valid.event, spec, run, readOutput)),
      map((judged) => {
        // Cuts by the event's total are one line for the whole event (runHooks).
        const cut = [stdout, stderr].flatMap((o, i) =>
          o.cutByCap ? [`hook ${oneLineText(spec.name)}: ${i === 0 ? "stdout" : "stderr"} cut at ${o.cap} bytes (${o.droppedBytes} more dropped)`] : [],
        );
        return cut.length ? { ...judged, warnings: [...judged.warnings, ...cut] } : judged;
      }),
    );
  });
}

/** How a hook's stdout JSON is read for the host: in Claude Code's shape unless the host writes its own. */
function outputReader(dialect: Dialect | undefined, valid: ValidEvent): ((output: unknown) => unknown) | undefined {
  const read = dialect === undefined ? undefined : hostDialect(dialect).readHookOutput;
  return read && ((output) => read(valid.event, output, valid.payload));
}
