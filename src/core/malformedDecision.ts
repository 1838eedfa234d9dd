import { EVENT_TRAITS, type Decision, type EventName } from "../schema/events.js";
import { EMPTY_VERDICT, type Verdict } from "../schema/hookOutput.js";

/**
 * A hook's stdout JSON that breaks its event's schema is `invalid-output`, a non-blocking error. But when that JSON
 * clearly says deny, block, ask or stop, dropping it would let the call through that a guard meant to stop: a typo
 * elsewhere would switch the guard off. So the restrictive part of such an output is read anyway (docs/hooks.md,
 * "Malformed output"), and only that part: a malformed allow, context, `updatedInput` or `systemMessage` has no
 * effect, as before.
 *
 * Returns the verdict the output clearly asks for, or null when it asks for nothing more restrictive than allow.
 * It reads a fixed handful of keys, exactly spelled, so its work does not grow with the output.
 */
export function readMalformedDecision(event: EventName, json: unknown): Verdict | null {
  if (!isObject(json)) return null;
  const found = decisionOf(event, json);
  const stops = json.continue === false;
  if (found === null && !stops) return null;
  const decision = found?.decision ?? "none";
  const reason = found?.reason ?? null;
  const interrupt = found?.interrupt === true;
  // As in a valid output: the stop's own reason, else (an interrupting denial) the denial's.
  const stopReason = stops || interrupt ? (usable(json.stopReason) ?? (interrupt ? reason : null)) : null;
  return { ...EMPTY_VERDICT, decision, reason, continue: !(stops || interrupt), stopReason };
}

interface Found {
  readonly decision: Decision;
  readonly reason: string | null;
  /** PermissionRequest's `interrupt: true` on a denial: the agent stops too. */
  readonly interrupt?: boolean;
}

/** The event's own deny or block (or PreToolUse's ask), most restrictive first, whatever else the output says. */
function decisionOf(event: EventName, json: Record<string, unknown>): Found | null {
  const block = EVENT_TRAITS[event].blockDecision;
  if (block === null) return null;
  const specific = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const legacyBlock = json.decision === "block";
  if (event === "PreToolUse" || event === "PreModelSwitch") {
    const said = specific.permissionDecision;
    const reason = usable(specific.permissionDecisionReason) ?? usable(json.reason);
    // deny > ask > allow, as aggregation ranks them: a deny anywhere in the output wins over an allow beside it.
    if (said === "deny" || legacyBlock) return { decision: "deny", reason };
    if (said === "ask") return { decision: "ask", reason };
    return null;
  }
  if (event === "PermissionRequest") {
    const inner = isObject(specific.decision) ? specific.decision : {};
    const reason = usable(inner.message) ?? usable(json.reason);
    if (inner.behavior === "deny") return { decision: "deny", reason, interrupt: inner.interrupt === true };
    if (legacyBlock) return { decision: "deny", reason };
    return null;
  }
  return legacyBlock ? { decision: block, reason: usable(json.reason) } : null;
}

/** A reason is taken when it is a string with something in it; anything else gets the default that names the hook. */
function usable(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
