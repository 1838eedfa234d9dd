import { catchError, defer, finalize, forkJoin, map, mergeMap, of, type Observable, type OperatorFunction } from "rxjs";
import { oneLineText } from "../text/oneLine.js";
import { CappedOutput, DEFAULT_MAX_EVENT_OUTPUT_BYTES, OutputBudget } from "../exec/cappedOutput.js";
import { hookEnvironment } from "../exec/hookEnvironment.js";
import { runnerFor } from "../exec/runners/index.js";
import { messageOf } from "../errors.js";
import type { BackgroundRunner } from "../handlers/backgroundHooks.js";
import { createEnvFile } from "../handlers/envFile.js";
import type { HandlerServices } from "../handlers/services.js";
import type { ValidEvent } from "../payload/parsePayload.js";
import { interpretRun, mapExitCode } from "./mapExitCode.js";
import { raceTimeout } from "./raceTimeout.js";
import type { HookRun, HookSpec, JudgedHook, Ran, Recorded } from "./stages.js";

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
}

/**
 * Runs every selected hook of each event at once, each raced against its own timeout, and emits the event when all
 * of them have finished or timed out. One hook's block never cancels its siblings. Results keep
 * selection order, whatever order the hooks finish in.
 */
export function runHooks(options: RunHooksOptions): OperatorFunction<Recorded, Ran> {
  return mergeMap((recorded) => {
    if (recorded.hooks.length === 0 && !recorded.background?.length) return of({ ...recorded, judged: [] });
    const envFor = hookEnvironment({
      baseEnv: options.baseEnv,
      projectDir: options.projectDir,
      homeDir: options.homeDir,
      event: recorded.valid.event,
      sessionId: recorded.valid.sessionId,
      replay: options.replay,
      callChain: options.callChain,
    });
    for (const spec of recorded.background ?? []) options.background?.start(recorded.seq, recorded.valid, spec, runOneHook(spec, recorded.valid, envFor, options), recorded.snapshot.redactor);
    if (recorded.hooks.length === 0) return of({ ...recorded, judged: [] });
    return recorded.valid.event === "SessionStart" ? withEnvFile(recorded, envFor, options) : runAll(recorded, envFor, options);
  });
}

/**
 * SessionStart: the hooks get $CLAUDE_ENV_FILE, a file to append `export K=V` lines to; once they have all ended,
 * the variables go into the outcome (`env`), for the agent to set in the session's commands.
 */
function withEnvFile(recorded: Recorded, envFor: (command: string) => Record<string, string>, options: RunHooksOptions): Observable<Ran> {
  return defer(() => {
    const file = createEnvFile();
    if ("error" in file) return runAll(recorded, envFor, options).pipe(map((ran) => ({ ...ran, warnings: [...ran.warnings, file.error] })));
    return runAll(recorded, (command) => ({ ...envFor(command), CLAUDE_ENV_FILE: file.path }), options).pipe(
      map((ran) => {
        const read = file.read();
        return { ...ran, env: read.env, warnings: [...ran.warnings, ...read.warnings] };
      }),
      finalize(() => file.remove()),
    );
  });
}

function runAll(recorded: Recorded, envFor: (command: string) => Record<string, string>, options: RunHooksOptions): Observable<Ran> {
  return defer(() => {
    const total = options.maxEventOutputBytes ?? DEFAULT_MAX_EVENT_OUTPUT_BYTES;
    const budget = new OutputBudget(total, 2 * recorded.hooks.filter((h) => h.kind === "command").length);
    const runs = recorded.hooks.map((spec) => runOneHook(spec, recorded.valid, envFor, options, budget));
    return forkJoin(runs).pipe(
      map((judged) => {
        const cut = budget.cutStreams;
        if (cut.length === 0) return { ...recorded, judged };
        const dropped = cut.reduce((sum, o) => sum + o.droppedBytes, 0);
        const warning =
          `the hooks of this event printed more than the ${total} bytes an event keeps (QHOOKS_MAX_EVENT_OUTPUT): ` +
          `${dropped} bytes of ${cut.length} stream${cut.length === 1 ? "" : "s"} dropped (each stream kept at least its first ${budget.reserve} bytes; decisions and exit codes are unaffected)`;
        return { ...recorded, judged, warnings: [...recorded.warnings, warning] };
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
  spec: HookSpec,
  valid: ValidEvent,
  envFor: (command: string) => Record<string, string>,
  options: Pick<RunHooksOptions, "projectDir" | "maxOutputBytes" | "services">,
  budget: OutputBudget | null = null,
): Observable<JudgedHook> {
  return defer(() => {
    const start = performance.now();
    return judgeOneHook(spec, valid, envFor, options, budget, start).pipe(
      catchError((e: unknown) => of(interpretRun(valid.event, spec, { type: "spawn-error", message: `internal error: ${messageOf(e)}`, durationMs: performance.now() - start }))),
    );
  });
}

function judgeOneHook(
  spec: HookSpec,
  valid: ValidEvent,
  envFor: (command: string) => Record<string, string>,
  options: Pick<RunHooksOptions, "projectDir" | "maxOutputBytes" | "services">,
  budget: OutputBudget | null,
  start: number,
): Observable<JudgedHook> {
  return defer(() => {
    const elapsed = () => performance.now() - start;
    const stdout = new CappedOutput(options.maxOutputBytes, budget);
    const stderr = new CappedOutput(options.maxOutputBytes, budget);
    const output = () => ({ stdout: stdout.text(), stderr: stderr.text(), truncated: stdout.truncated || stderr.truncated });

    const env = spec.kind === "command" ? { ...envFor(spec.command), ...spec.env } : {};
    const run$ = runnerFor(spec)({ spec, valid, env, projectDir: options.projectDir, stdout, stderr, elapsed, services: options.services ?? {} });

    return run$.pipe(
      raceTimeout(spec.timeoutMs, ({ limitMs, elapsedMs }): HookRun => ({ type: "timeout", limitMs, durationMs: elapsedMs, ...output() })),
      mapExitCode(valid.event, spec),
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

