/**
 * The values that flow from one operator to the next, in pipeline order. Each stage adds what its step learned
 * and keeps everything before it, so that the last step can record the whole story of an event.
 */
import type { EventName } from "../schema/events.js";
import type { Verdict } from "../schema/hookOutput.js";
import type { HookResult, Outcome, SkippedHook } from "../schema/outcome.js";
import type { RejectedEvent, ValidEvent } from "../payload/parsePayload.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { ConfiguredHook } from "../settings/parseSettingsFile.js";
import type { HandlerSetting } from "../schema/settings.js";
import type { PipelineWarning } from "./warnings.js";
import type { PinnedSite } from "./runSite.js";

/** An event as it enters: the agent's payload, not yet trusted. */
export interface Arrival {
  /** JSON text (CLI, replay) or an object (library). */
  readonly input: string | object;
  /** The event named outside the payload (the CLI's `<event>` argument). */
  readonly event?: EventName | undefined;
  /** Wall-clock time of arrival, for the log. */
  readonly receivedAt: Date;
  /** performance.now() at arrival, for durations. */
  readonly startedAt: number;
}

/** An in-process handler registered with `bus.use()`. */
export interface InProcessHandler {
  readonly event: EventName;
  readonly matcherSource: string | null;
  readonly matcher: import("./compileMatcher.js").Matcher;
  readonly name: string;
  readonly timeoutMs: number;
  readonly handle: (payload: Readonly<Record<string, unknown>>) => unknown;
}

/** One hook selected to run for an event, at its place in selection order. */
export type HookSpec =
  | {
      readonly kind: "command";
      readonly command: string;
      readonly name: string;
      readonly level: string;
      readonly matcher: string | null;
      readonly timeoutMs: number;
      /** Shadow mode: it runs, and its result is logged, but its verdict never counts. */
      readonly shadow?: boolean;
      /** Variables of this hook's own: a plugin hook's CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA. */
      readonly env?: Readonly<Record<string, string>>;
      /**
       * The handler as the settings declare it, with every field of its type: which runner runs it (command, http,
       * prompt, agent, mcp_tool) and how (shell, async, once, onFailure). Absent: a plain command.
       */
      readonly handler?: HandlerSetting;
      /**
       * Every settings entry that declares this command and matched the event, the one whose name, level, matcher
       * and timeout are reported first: trust asks where a command comes from, and a copy in the user's own file is
       * enough to run it.
       */
      readonly declared?: readonly ConfiguredHook[];
      /** Set by trust: the scripts the command runs directly and the hashes trusted; run from those bytes only. */
      readonly verified?: readonly PinnedSite[];
    }
  | {
      readonly kind: "in-process";
      readonly command: null;
      readonly name: string;
      readonly level: "in-process";
      readonly matcher: string | null;
      readonly timeoutMs: number;
      readonly handle: InProcessHandler["handle"];
    };

export interface Validated {
  readonly arrival: Arrival;
  readonly valid: ValidEvent;
  /** The configuration this event is judged by, taken once when it arrived. */
  readonly snapshot: SettingsSnapshot;
}

export interface Matched extends Validated {
  /** The hooks that run. */
  readonly hooks: readonly HookSpec[];
  /** Hooks selected for the event that do not run (untrusted), for the outcome's `skipped`. */
  readonly skipped: readonly SkippedHook[];
  /** What selection has to say (one line per untrusted hook), for the outcome's warnings. */
  readonly selectionWarnings: readonly string[];
  /** `async: true` hooks: started with the others, their results logged apart, never part of the outcome. */
  readonly background?: readonly HookSpec[];
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

/** How a hook run ended, before it is read as a decision. */
export type HookRun =
  | {
      readonly type: "exited";
      readonly exitCode: number | null;
      readonly signal: string | null;
      readonly durationMs: number;
      readonly stdout: string;
      readonly stderr: string;
      readonly truncated: boolean;
    }
  | {
      readonly type: "timeout";
      readonly limitMs: number;
      readonly durationMs: number;
      readonly stdout: string;
      readonly stderr: string;
      readonly truncated: boolean;
    }
  | { readonly type: "spawn-error"; readonly message: string; readonly durationMs: number }
  /** A handler that is not a process failed (an http hook's server down or answering 500, an evaluator that threw...). */
  | { readonly type: "failed"; readonly message: string; readonly durationMs: number; readonly stdout?: string; readonly truncated?: boolean }
  | { readonly type: "returned"; readonly value: unknown; readonly durationMs: number }
  /** An in-process handler returned something that cannot be read as data (a throwing getter, a cycle...). */
  | { readonly type: "unreadable"; readonly message: string; readonly durationMs: number }
  | { readonly type: "threw"; readonly message: string; readonly durationMs: number };

/** One hook's run, read: its public result, what it said, and what was odd about it. */
export interface JudgedHook {
  readonly result: HookResult;
  readonly verdict: Verdict;
  readonly warnings: readonly string[];
}

export interface Ran extends Recorded {
  readonly judged: readonly JudgedHook[];
  /** What SessionStart hooks wrote to $CLAUDE_ENV_FILE. */
  readonly env?: Readonly<Record<string, string>>;
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
