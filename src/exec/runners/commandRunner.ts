import { from, map, mergeMap, type Observable } from "rxjs";
import type { HookRun } from "../../operators/stages.js";
import type { spawnHook as SpawnHook } from "../spawnHook.js";
import { handlerOf, type Runner } from "./runner.js";

/** A `command` hook: a shell command in a process group of its own, the payload on stdin (spawnHook). */
export const commandRunner: Runner = ({ spec, valid, env, projectDir, stdout, stderr, elapsed }) => {
  const handler = handlerOf(spec);
  const shell = handler?.type === "command" ? handler.shell : undefined;
  return withSpawnHook((spawnHook) => spawnHook({ command: spec.command!, ...(shell ? { shell } : {}), cwd: projectDir, env, input: valid.json, stdout, stderr })).pipe(
    map((end): HookRun =>
      end.type === "spawn-error"
        ? { type: "spawn-error", message: end.message, durationMs: elapsed() }
        : { type: "exited", exitCode: end.exitCode, signal: end.signal, durationMs: elapsed(), stdout: stdout.text(), stderr: stderr.text(), truncated: stdout.truncated || stderr.truncated },
    ),
  );
};

/**
 * child_process and the watchdog are not needed by a `qhooks run` whose event matches no command hook, so they
 * load with the first hook that runs.
 */
let spawnHookModule: Promise<typeof import("../spawnHook.js")> | null = null;
function withSpawnHook<T>(use: (spawn: typeof SpawnHook) => Observable<T>): Observable<T> {
  spawnHookModule ??= import("../spawnHook.js");
  return from(spawnHookModule).pipe(mergeMap((m) => use(m.spawnHook)));
}
