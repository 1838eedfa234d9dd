import { catchError, defer, forkJoin, from, map, mergeMap, of, type Observable, type OperatorFunction } from "rxjs";
import { oneLineText } from "../text/oneLine.js";
import { CappedOutput } from "../exec/cappedOutput.js";
import { hookEnvironment } from "../exec/hookEnvironment.js";
import type { spawnHook as SpawnHook } from "../exec/spawnHook.js";
import { messageOf } from "../errors.js";
import type { ValidEvent } from "../payload/parsePayload.js";
import { mapExitCode } from "./mapExitCode.js";
import { raceTimeout } from "./raceTimeout.js";
import type { HookRun, HookSpec, JudgedHook, Ran, Recorded } from "./stages.js";

export interface RunHooksOptions {
  readonly projectDir: string;
  readonly homeDir: string;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly maxOutputBytes: number;
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
    const runs = recorded.hooks.map((spec) => runOneHook(spec, recorded.valid, envFor, options));
    return forkJoin(runs).pipe(map((judged) => ({ ...recorded, judged })));
  });
}

/** One hook, from start to its judged result; unsubscribing kills it. */
export function runOneHook(
  spec: HookSpec,
  valid: ValidEvent,
  envFor: (command: string) => Record<string, string>,
  options: Pick<RunHooksOptions, "projectDir" | "maxOutputBytes">,
): Observable<JudgedHook> {
  return defer(() => {
    const start = performance.now();
    const elapsed = () => performance.now() - start;
    const stdout = new CappedOutput(options.maxOutputBytes);
    const stderr = new CappedOutput(options.maxOutputBytes);
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
        : from(Promise.resolve().then(() => spec.handle(valid.payload))).pipe(
            map((value): HookRun => ({ type: "returned", value, durationMs: elapsed() })),
            catchError((e: unknown) => of<HookRun>({ type: "threw", message: messageOf(e), durationMs: elapsed() })),
          );

    return run$.pipe(
      raceTimeout(spec.timeoutMs, ({ limitMs, elapsedMs }): HookRun => ({ type: "timeout", limitMs, durationMs: elapsedMs, ...output() })),
      mapExitCode(valid.event, spec),
      map((judged) => {
        const cut = [stdout, stderr].flatMap((o, i) =>
          o.truncated ? [`hook ${oneLineText(spec.name)}: ${i === 0 ? "stdout" : "stderr"} cut at ${o.cap} bytes (${o.droppedBytes} more dropped)`] : [],
        );
        return cut.length ? { ...judged, warnings: [...judged.warnings, ...cut] } : judged;
      }),
    );
  });
}

/**
 * execa and its dependencies are the largest part of qhooks to load; a `qhooks run` whose event matches no command
 * hook never needs them, so they load with the first hook that runs.
 */
let spawnHookModule: Promise<typeof import("../exec/spawnHook.js")> | null = null;
function withSpawnHook<T>(use: (spawn: typeof SpawnHook) => Observable<T>): Observable<T> {
  spawnHookModule ??= import("../exec/spawnHook.js");
  return from(spawnHookModule).pipe(mergeMap((m) => use(m.spawnHook)));
}
