import { defer, finalize, from, map, mergeMap, of, type Observable } from "rxjs";
import { verifiedRun } from "../../trust/verifiedRun.js";
import type { HookRun } from "../../core/hookRun.js";
import type { HookProcessEnd as HookEnd, spawnHook as SpawnHook } from "../spawnHook.js";
import type { Runner } from "./runner.js";
import { hookInput } from "./hookInput.js";

/** A `command` hook: a shell command in a process group of its own, the payload on stdin (spawnHook). */
export const commandRunner: Runner = ({ spec, valid, env, projectDir, stdout, stderr, elapsed, gate }) => {
  if (spec.kind !== "command" || spec.handler.type !== "command") throw new Error(`commandRunner: a ${spec.kind} hook`);
  const shell = spec.handler.shell;
  // Trust checked the scripts when it selected the hook: they are read again when it starts, and run from those
  // bytes (the copies are closed once it ended or was stopped).
  return defer(() => {
    const verified = spec.verified ? verifiedRun(spec.command, spec.verified, shell ?? "/bin/sh") : null;
    if (verified?.ok === false) return of<HookEnd>({ type: "spawn-error", message: verified.message });
    const command = verified?.command ?? spec.command;
    const extraFds = verified?.fds.length ? { extraFds: verified.fds } : {};
    return withSpawnHook((spawnHook) =>
      spawnHook({
        command,
        ...(shell ? { shell } : {}),
        cwd: projectDir,
        env,
        input: hookInput(spec, valid),
        stdout,
        stderr,
        ...(gate ? { gate } : {}),
        ...extraFds,
      }),
    ).pipe(finalize(() => verified?.release()));
  }).pipe(
    map(
      (end): HookRun =>
        end.type === "spawn-error"
          ? { type: "spawn-error", message: end.message, durationMs: elapsed() }
          : {
              type: "exited",
              exitCode: end.exitCode,
              signal: end.signal,
              durationMs: elapsed(),
              stdout: stdout.text(),
              stderr: stderr.text(),
              truncated: stdout.truncated || stderr.truncated,
            },
    ),
  );
};

/**
 * child_process and the watchdog are not needed by a `qhooks run` whose event matches no command hook, so they
 * load with the first hook that runs.
 */
let spawnHookModule: Promise<typeof import("../spawnHook.js")> | null = null;
/** Once loaded, hooks are spawned when subscribed to: while the event's arrival commits, not after. */
let loaded: typeof SpawnHook | null = null;
function withSpawnHook<T>(use: (spawn: typeof SpawnHook) => Observable<T>): Observable<T> {
  if (loaded !== null) return use(loaded);
  spawnHookModule ??= import("../spawnHook.js").then((m) => ((loaded = m.spawnHook), m));
  return from(spawnHookModule).pipe(mergeMap((m) => use(m.spawnHook)));
}
