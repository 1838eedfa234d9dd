import type { Observable } from "rxjs";
import type { HandlerServices } from "../../core/services.js";
import type { HookRun } from "../../core/hookRun.js";
import type { ValidEvent } from "../../payload/parsePayload.js";
import type { CappedOutput } from "../cappedOutput.js";
import type { SelectedHook } from "../../core/hookDescriptor.js";

/** Everything one run of one hook needs, whatever its type. */
export interface RunRequest {
  readonly spec: SelectedHook;
  readonly valid: ValidEvent;
  /** The hook's complete environment (a command's; http headers expand from it). */
  readonly env: Readonly<Record<string, string>>;
  readonly projectDir: string;
  readonly stdout: CappedOutput;
  readonly stderr: CappedOutput;
  /** Milliseconds since the hook started. */
  readonly elapsed: () => number;
  readonly services: HandlerServices;
  /** A command hook's process is spawned at once but runs its command only once this resolves (spawnHook's gate). */
  readonly gate?: PromiseLike<unknown>;
}

/**
 * Runs one hook of one handler type: emits how the run ended, once, then completes. Unsubscribing stops the run
 * (kills the process group, aborts the request or the evaluator): that is how a timeout or a closing bus stops it.
 * A runner never errors for anything the hook does; what goes wrong is a HookRun value.
 */
export type Runner = (request: RunRequest) => Observable<HookRun>;
