import { z } from "zod";
import { DecisionSchema, EVENT_NAMES, EVENT_TRAITS, type EventName } from "./events.js";
import { lazy, lazyRecord } from "./lazy.js";

/**
 * What one hook said, in the engine's own terms, whatever form it said it in (JSON on stdout, exit code 2, or an
 * in-process handler's return value). Aggregation folds these.
 */
export const VerdictSchema = lazy(() =>
  z.object({
    decision: DecisionSchema,
    reason: z.string().nullable(),
    continue: z.boolean(),
    stopReason: z.string().nullable(),
    systemMessage: z.string().nullable(),
    additionalContext: z.string().nullable(),
    updatedInput: z.record(z.string(), z.unknown()).nullable(),
    suppressOutput: z.boolean(),
    /** Parts of the output that were understood but do not apply to this event, for a warning. */
    ignored: z.array(z.string()),
  }),
);
export type Verdict = z.infer<typeof VerdictSchema>;

/**
 * What an in-process handler (`bus.use()`) answers, in the engine's vocabulary: a decision (`deny` and `block`
 * both stop what the event can stop; `allow` and `ask` where the event has them), its reason, and the outcome's
 * other parts. Every field may be left out; returning `undefined` is no opinion. Its type is what `use()` checks a
 * handler against; at run time a value that does not parse makes that handler's result `invalid-output`.
 */
export const HandlerVerdictSchema = lazy(() =>
  z.object({
    decision: z.enum(["allow", "deny", "ask", "block"]).optional(),
    reason: z.string().optional(),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
    additionalContext: z.string().optional(),
    systemMessage: z.string().optional(),
    continue: z.boolean().optional(),
    stopReason: z.string().optional(),
  }),
);
export type HandlerVerdict = z.infer<typeof HandlerVerdictSchema>;

export const EMPTY_VERDICT: Verdict = Object.freeze({
  decision: "none",
  reason: null,
  continue: true,
  stopReason: null,
  systemMessage: null,
  additionalContext: null,
  updatedInput: null,
  suppressOutput: false,
  ignored: [],
}) as Verdict;

const str = () => z.string({ error: "expected a string" });
const bool = () => z.boolean({ error: "expected true or false" });
const inputObject = () => z.record(z.string(), z.unknown(), { error: "expected an object" });

/** Fields every event understands. */
const universal = () => ({
  continue: bool().optional(),
  stopReason: str().optional(),
  suppressOutput: bool().optional(),
  systemMessage: str().optional(),
  reason: str().optional(),
  /** A terminal notification Claude Code writes for the hook; qhooks only relays it (`--format hook`). */
  terminalSequence: str().optional(),
});

const hookSpecific = <S extends z.core.$ZodLooseShape>(event: EventName, shape: S) =>
  z.looseObject({ hookEventName: z.literal(event, { error: `expected "${event}" (the event this hook ran for)` }), ...shape }, { error: "expected an object" });

/** `decision` at the top level: `approve` / `block` in the classic protocol. */
const legacyDecision = () => z.enum(["approve", "block"], { error: 'expected "approve" or "block"' }).optional();

type Universal = { [K in keyof ReturnType<typeof universal>]?: z.infer<ReturnType<typeof universal>[K]> };

function base(out: Universal, ignored: string[] = []): Verdict {
  return {
    ...EMPTY_VERDICT,
    continue: out.continue ?? true,
    stopReason: out.stopReason ?? null,
    systemMessage: out.systemMessage ?? null,
    suppressOutput: out.suppressOutput ?? false,
    ignored,
  };
}

/**
 * PreToolUse and PreModelSwitch: `hookSpecificOutput.permissionDecision` (allow, deny, ask) and its reason; the
 * legacy top-level `decision: approve | block` means allow | deny. Only PreToolUse rewrites input or adds context.
 */
const permission = (event: "PreToolUse" | "PreModelSwitch") =>
  z
    .looseObject({
      ...universal(),
      decision: legacyDecision(),
      hookSpecificOutput: hookSpecific(event, {
        permissionDecision: z.enum(["allow", "deny", "ask"], { error: 'expected "allow", "deny" or "ask"' }).optional(),
        permissionDecisionReason: str().optional(),
        ...(event === "PreToolUse" ? { updatedInput: inputObject().optional(), additionalContext: str().optional() } : {}),
      }).optional(),
    })
    .transform((out): Verdict => {
      const specific = out.hookSpecificOutput as
        | {
            permissionDecision?: "allow" | "deny" | "ask";
            permissionDecisionReason?: string;
            updatedInput?: Record<string, unknown>;
            additionalContext?: string;
          }
        | undefined;
      const legacy = out.decision === "approve" ? "allow" : out.decision === "block" ? "deny" : undefined;
      const decision = specific?.permissionDecision ?? legacy ?? "none";
      return {
        ...base(out),
        decision,
        reason: specific?.permissionDecisionReason ?? out.reason ?? null,
        additionalContext: specific?.additionalContext ?? null,
        updatedInput: specific?.updatedInput ?? null,
      };
    });

const permissionRequest = () =>
  z
    .looseObject({
      ...universal(),
      decision: legacyDecision(),
      hookSpecificOutput: hookSpecific("PermissionRequest", {
        decision: z
          .looseObject(
            {
              behavior: z.enum(["allow", "deny"], { error: 'expected "allow" or "deny"' }),
              updatedInput: inputObject().optional(),
              message: str().optional(),
              interrupt: bool().optional(),
            },
            { error: "expected an object" },
          )
          .optional(),
      }).optional(),
    })
    .transform((out): Verdict => {
      const d = out.hookSpecificOutput?.decision;
      const legacy = out.decision === "approve" ? "allow" : out.decision === "block" ? "deny" : undefined;
      const decision = d?.behavior ?? legacy ?? "none";
      const reason = d?.message ?? out.reason ?? null;
      // `interrupt` on a denial stops the agent, which the outcome expresses as `continue: false`.
      const interrupt = d?.behavior === "deny" && d.interrupt === true;
      return {
        ...base(out),
        decision,
        reason,
        updatedInput: d?.updatedInput ?? null,
        continue: interrupt ? false : (out.continue ?? true),
        stopReason: interrupt ? (out.stopReason ?? reason) : (out.stopReason ?? null),
      };
    });

/** Every other event that can block (PostToolUse, Stop, TaskCreated...): `decision: "block"` + `reason`. */
const blockable = (event: EventName) =>
  z
    .looseObject({
      ...universal(),
      decision: legacyDecision(),
      hookSpecificOutput: hookSpecific(event, { additionalContext: str().optional() }).optional(),
    })
    .transform((out): Verdict => {
      const ignored: string[] = [];
      const context = out.hookSpecificOutput?.additionalContext;
      if (context !== undefined && !EVENT_TRAITS[event].carriesContext) {
        ignored.push(`hookSpecificOutput.additionalContext (${event} carries no context)`);
      }
      return {
        ...base(out, ignored),
        decision: out.decision === "block" ? "block" : "none",
        reason: out.decision === "block" ? (out.reason ?? null) : null,
        additionalContext: EVENT_TRAITS[event].carriesContext ? (context ?? null) : null,
      };
    });

/** Events that cannot block: a top-level `decision` is ignored with a warning. */
const informational = (event: EventName) =>
  z
    .looseObject({
      ...universal(),
      decision: z.unknown().optional(),
      hookSpecificOutput: hookSpecific(event, { additionalContext: str().optional() }).optional(),
    })
    .transform((out): Verdict => {
      const ignored: string[] = [];
      if (out.decision !== undefined) ignored.push(`decision (${event} cannot be blocked)`);
      const context = out.hookSpecificOutput?.additionalContext;
      if (context !== undefined && !EVENT_TRAITS[event].carriesContext) {
        ignored.push(`hookSpecificOutput.additionalContext (${event} carries no context)`);
      }
      return {
        ...base(out, ignored),
        additionalContext: EVENT_TRAITS[event].carriesContext ? (context ?? null) : null,
      };
    });

/**
 * The JSON a hook may print on exit 0, per event, each parsing straight into a Verdict. Keys qhooks
 * does not read (a SessionStart `sessionTitle`, a MessageDisplay `displayContent`...) pass; `--format hook` relays
 * them from the hooks' stdout. Each is built the first time its event's hook output is read.
 */
export const HOOK_OUTPUT_SCHEMAS: Readonly<Record<EventName, z.ZodType<Verdict, unknown>>> = lazyRecord(EVENT_NAMES, (event): z.ZodType<Verdict, unknown> => {
  if (event === "PreToolUse" || event === "PreModelSwitch") return permission(event);
  if (event === "PermissionRequest") return permissionRequest();
  return EVENT_TRAITS[event].blockDecision ? blockable(event) : informational(event);
});
