import { EVENT_TRAITS } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";

/** What `qhooks run --format hook` answers, as the single hook an agent calls (contract 8, `--format hook`). */
export interface HookProtocolReply {
  readonly exitCode: 0 | 2;
  /** One JSON object in the Claude/Qoder hook output schema, or "" when there is nothing to say. */
  readonly stdout: string;
  /** The block reason when exiting 2; "" otherwise. */
  readonly stderr: string;
}

/**
 * Turns an outcome into the hook protocol: a block (that does not also stop the agent) is exit 2 with the reason
 * on stderr; anything else worth saying is one JSON object on stdout with exit 0; nothing to say is an empty exit 0.
 */
export function toHookProtocol(outcome: Outcome): HookProtocolReply {
  const stopping = !outcome.continue;
  if (outcome.blocked && !stopping) {
    return { exitCode: 2, stdout: "", stderr: outcome.reason ?? `blocked by qhooks (${outcome.event})` };
  }

  const out: Record<string, unknown> = {};
  const specific: Record<string, unknown> = {};
  if (stopping) {
    out.continue = false;
    if (outcome.stopReason !== null) out.stopReason = outcome.stopReason;
  }
  if (outcome.systemMessages.length) out.systemMessage = outcome.systemMessages.join("\n");
  if (outcome.suppressOutput) out.suppressOutput = true;

  switch (outcome.event) {
    case "PreToolUse":
      if (outcome.decision !== "none") {
        specific.permissionDecision = outcome.decision;
        if (outcome.reason !== null) specific.permissionDecisionReason = outcome.reason;
      }
      if (outcome.updatedInput !== null) specific.updatedInput = outcome.updatedInput;
      break;
    case "PermissionRequest":
      if (outcome.decision === "allow" || outcome.decision === "deny") {
        const decision: Record<string, unknown> = { behavior: outcome.decision };
        if (outcome.updatedInput !== null) decision.updatedInput = outcome.updatedInput;
        if (outcome.reason !== null) decision.message = outcome.reason;
        specific.decision = decision;
      }
      break;
    default:
      if (outcome.blocked) {
        out.decision = "block";
        if (outcome.reason !== null) out.reason = outcome.reason;
      }
  }
  if (outcome.additionalContext.length && EVENT_TRAITS[outcome.event].carriesContext) {
    specific.additionalContext = outcome.additionalContext.join("\n");
  }
  if (Object.keys(specific).length) out.hookSpecificOutput = { hookEventName: outcome.event, ...specific };

  return { exitCode: 0, stdout: Object.keys(out).length ? JSON.stringify(out) : "", stderr: "" };
}
