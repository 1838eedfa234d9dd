import { z } from "zod";
import { DecisionSchema, EventNameSchema } from "./events.js";

/** How one hook run ended. Only `success` and `block` can carry a decision. */
export const HookOutcomeKindSchema = z.enum(["success", "block", "error", "invalid-output", "timeout"]);
export type HookOutcomeKind = z.infer<typeof HookOutcomeKindSchema>;

/**
 * Something wrong with a hook's output that did not stop its result from counting. A fixed set of kinds, so that
 * nothing reads the message to tell them apart: `malformed-output` is stdout JSON that broke its event's schema but
 * clearly said deny, block, ask or stop, and was read as that (docs/hooks.md, "Malformed output").
 */
export const HookWarningSchema = z.object({
  kind: z.enum(["malformed-output"]),
  /** What was wrong, in one line (the first schema issue). */
  message: z.string(),
});
export type HookWarning = z.infer<typeof HookWarningSchema>;

/** One hook's result inside an outcome. */
export const HookResultSchema = z.object({
  name: z.string(),
  /** null for an in-process handler. */
  command: z.string().nullable(),
  /** `user`, `project`, `local`, `in-process`, or the path of a `--settings` file. */
  level: z.string(),
  matcher: z.string().nullable(),
  outcome: HookOutcomeKindSchema,
  decision: DecisionSchema,
  reason: z.string().nullable(),
  /** Why an `error` or `invalid-output` result is one, in one line. */
  error: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
  /** Set on a shadow hook's result: it ran and said this, but it did not count. */
  shadow: z.literal(true).optional(),
  /** Defects of an output that still counted; absent when there were none (and in results logged before it existed). */
  warnings: z.array(HookWarningSchema).optional(),
});
export type HookResult = z.infer<typeof HookResultSchema>;

/**
 * Why a hook selected for an event did not run. A fixed set of kinds, one per cause, so that nothing reads a
 * message to tell them apart; later causes (a once-only hook already run, a handler type qhooks cannot run) add
 * their own value here.
 */
export const SkipReasonSchema = z.enum(["untrusted", "async", "once", "no-evaluator", "no-mcp-caller"]);
export type SkipReason = z.infer<typeof SkipReasonSchema>;

/** A hook the event selected that did not run: it is reported here, never as a `hooks[]` result. */
export const SkippedHookSchema = z.object({
  name: z.string(),
  command: z.string().nullable(),
  /** `project`, `local`, `plugin`, or the path of a `--settings` file (as in `hooks[]`). */
  level: z.string(),
  matcher: z.string().nullable(),
  /** The handler's `type` in the settings (`command`). */
  type: z.string(),
  reason: SkipReasonSchema,
  /** Why, in one line, with what to do about it. */
  message: z.string(),
});
export type SkippedHook = z.infer<typeof SkippedHookSchema>;

/** One outcome per event: what `qhooks run` prints and `dispatch()` resolves to. */
export const OutcomeSchema = z.object({
  event: EventNameSchema,
  sessionId: z.string(),
  /** The event's position in the log; null when logging is off. */
  seq: z.number().int().nullable(),
  decision: DecisionSchema,
  blocked: z.boolean(),
  reason: z.string().nullable(),
  continue: z.boolean(),
  stopReason: z.string().nullable(),
  systemMessages: z.array(z.string()),
  additionalContext: z.array(z.string()),
  updatedInput: z.record(z.string(), z.unknown()).nullable(),
  suppressOutput: z.boolean(),
  configHash: z.string(),
  durationMs: z.number(),
  hooks: z.array(HookResultSchema),
  /** Hooks selected for this event that did not run, and why (an outcome logged before this field existed has none). */
  skipped: z.array(SkippedHookSchema).default([]),
  /**
   * Present when shadow hooks ran: what the outcome would have been with them enforced, and whether that differs
   * from the outcome (its decision, whether the agent goes on, or the tool input).
   */
  shadow: z
    .object({
      hooks: z.array(z.string()),
      decision: DecisionSchema,
      blocked: z.boolean(),
      reason: z.string().nullable(),
      continue: z.boolean(),
      changed: z.boolean(),
    })
    .optional(),
  /**
   * Variables SessionStart hooks wrote to $CLAUDE_ENV_FILE (`export K=V` lines), for the agent to set in the
   * session's later commands; empty for every other event (and in outcomes logged before this field existed).
   */
  env: z.record(z.string(), z.string()).default({}),
  /** Problems met while judging this event (not settings warnings, which belong to the config snapshot). */
  warnings: z.array(z.string()),
});
export type Outcome = z.infer<typeof OutcomeSchema>;
