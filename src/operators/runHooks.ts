import { catchError, defer, forkJoin, from, map, mergeMap, of, type Observable, type OperatorFunction } from "rxjs";
import { oneLineText } from "../text/oneLine.js";
import { CappedOutput, DEFAULT_MAX_EVENT_OUTPUT_BYTES, OutputBudget } from "../exec/cappedOutput.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json/jsonDepth.js";
import { hookEnvironment } from "../exec/hookEnvironment.js";
import type { spawnHook as SpawnHook } from "../exec/spawnHook.js";
import { messageOf } from "../errors.js";
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
}

/**
 * Runs every selected hook of each event at once, each raced against its own timeout, and emits the event when all
 * of them have finished or timed out (contract 3). One hook's block never cancels its siblings. Results keep
 * selection order, whatever order the hooks finish in.
 */
export function runHooks(options: RunHooksOptions): OperatorFunction<Recorded, Ran> {
  return mergeMap((recorded) => {
    if (recorded.hooks.length === 0) return of({ ...recorded, judged: [] });
    const envFor = hookEnvironment({
      baseEnv: options.baseEnv,
      projectDir: options.projectDir,
      homeDir: options.homeDir,
      event: recorded.valid.event,
      sessionId: recorded.valid.sessionId,
      replay: options.replay,
      callChain: options.callChain,
    });
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
  options: Pick<RunHooksOptions, "projectDir" | "maxOutputBytes">,
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
  options: Pick<RunHooksOptions, "projectDir" | "maxOutputBytes">,
  budget: OutputBudget | null,
  start: number,
): Observable<JudgedHook> {
  return defer(() => {
    const elapsed = () => performance.now() - start;
    const stdout = new CappedOutput(options.maxOutputBytes, budget);
    const stderr = new CappedOutput(options.maxOutputBytes, budget);
    const output = () => ({ stdout: stdout.text(), stderr: stderr.text(), truncated: stdout.truncated || stderr.truncated });

    const run$: Observable<HookRun> =
      spec.kind === "command"
        ? withSpawnHook((spawnHook) => spawnHook({ command: spec.command, cwd: options.projectDir, env: { ...envFor(spec.command), ...spec.env }, input: valid.json, stdout, stderr })).pipe(
            map((end): HookRun =>
              end.type === "spawn-error"
                ? { type: "spawn-error", message: end.message, durationMs: elapsed() }
                : { type: "exited", exitCode: end.exitCode, signal: end.signal, durationMs: elapsed(), ...output() },
            ),
          )
        : from(Promise.resolve().then(() => plainJson(spec.handle(valid.payload)))).pipe(
            map((read): HookRun => (read.ok ? { type: "returned", value: read.value, durationMs: elapsed() } : { type: "unreadable", message: read.why, durationMs: elapsed() })),
            catchError((e: unknown) => of<HookRun>({ type: "threw", message: messageOf(e), durationMs: elapsed() })),
          );

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

/**
 * What an in-process handler returned (or resolved to), as plain JSON data, read once, here: a getter that throws,
 * a BigInt, a cycle or a toJSON that throws is this handler's error, and what the outcome, the log and the CLI
 * later serialise can no longer throw. Data nested deeper than command hooks may print is refused the same way.
 */
async function plainJson(result: unknown): Promise<{ ok: true; value: unknown } | { ok: false; why: string }> {
  // A rejection or a throwing `then` is the handler's throw, as before.
  const value = await result;
  if (value === undefined) return { ok: true, value: undefined };
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    return { ok: false, why: `a value that is not JSON data (${oneLineText(messageOf(e))})` };
  }
  if (text === undefined) return { ok: false, why: `a ${typeof value}, not an object` };
  if (nestsDeeperThan(text)) return { ok: false, why: `data nested deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, value: JSON.parse(text) };
}

/**
 * child_process and the watchdog are not needed by a `qhooks run` whose event matches no command hook, so they
 * load with the first hook that runs.
 */
let spawnHookModule: Promise<typeof import("../exec/spawnHook.js")> | null = null;
function withSpawnHook<T>(use: (spawn: typeof SpawnHook) => Observable<T>): Observable<T> {
  spawnHookModule ??= import("../exec/spawnHook.js");
  return from(spawnHookModule).pipe(mergeMap((m) => use(m.spawnHook)));
}
