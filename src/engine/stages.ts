/**
 * The values that flow from one operator to the next, in pipeline order. Each stage adds what its step learned
 * and keeps everything before it, so that the last step can record the whole story of an event.
 */
import type { Outcome, SkippedHook } from "../schema/outcome.js";
import type { RejectedEvent, ValidEvent } from "../payload/parsePayload.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { Arrival } from "../core/arrival.js";
import type { JudgedHook } from "../core/hookRun.js";
import type { SelectedHook } from "../core/hookDescriptor.js";
import type { PipelineWarning } from "../core/warnings.js";

export interface Validated {
  readonly arrival: Arrival;
  readonly valid: ValidEvent;
  /** The configuration this event is judged by, taken once when it arrived. */
  readonly snapshot: SettingsSnapshot;
}

export interface Matched extends Validated {
  /** The hooks that run. */
  readonly hooks: readonly SelectedHook[];
  /** Hooks selected for the event that do not run (untrusted), for the outcome's `skipped`. */
  readonly skipped: readonly SkippedHook[];
  /** What selection has to say (one line per untrusted hook), for the outcome's warnings. */
  readonly selectionWarnings: readonly string[];
  /** `async: true` hooks: started with the others, their results logged apart, never part of the outcome. */
  readonly background: readonly SelectedHook[] | undefined;
}

export interface Recorded extends Matched {
  /** Position of the arrival in the log; null when logging is off or the arrival is not recorded (yet). */
  readonly seq: number | null;
  /** `deferred`: no hook matched, so arrival and outcome are recorded together at the end. */
  readonly arrivalLogged: "yes" | "deferred" | "failed";
  /**
   * Problems met along the way (the log could not be written...), for the outcome's warnings; once judged, every
   * warning of the outcome, in its order (the outcome's `warnings` are their lines).
   */
  readonly warnings: readonly PipelineWarning[];
}

export interface Ran extends Recorded {
  readonly judged: readonly JudgedHook[];
  /** What SessionStart hooks wrote to $CLAUDE_ENV_FILE. */
  readonly env: Readonly<Record<string, string>> | undefined;
}

export interface Judged extends Recorded {
  readonly outcome: Outcome;
}

/**
 * What comes out of the pipeline for each arrival: an outcome; a rejection (invalid payload, recursion), which is
 * the caller's error; or a failure of qhooks itself, which is a bug.
 */
export type Judgement =
  | { readonly kind: "outcome"; readonly outcome: Outcome; readonly arrival: Arrival; readonly stage: Judged }
  | {
      readonly kind: "rejected";
      readonly rejection: RejectedEvent;
      readonly seq: number | null;
      readonly arrival: Arrival;
      readonly warnings: readonly string[];
    }
  | { readonly kind: "failed"; readonly arrival: Arrival; readonly error: string; readonly cause: unknown };
