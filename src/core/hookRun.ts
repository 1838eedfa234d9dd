import type { Verdict } from "../schema/hookOutput.js";
import type { HookResult } from "../schema/outcome.js";

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
