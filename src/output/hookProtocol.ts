import { EVENT_TRAITS, type EventName } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";
import { lastPlainLine, relayedFields } from "./relayedFields.js";

/** What `qhooks run --format hook` answers, as the single hook an agent calls. */
export interface HookProtocolReply {
  readonly exitCode: 0 | 2;
  /** One JSON object in the Claude/Qoder hook output schema, a WorktreeCreate path, or "" when there is nothing to say. */
  readonly stdout: string;
  /** The block reason when exiting 2; "" otherwise. */
  readonly stderr: string;
}

/**
 * Events whose block Claude Code takes from exit 2 alone: their JSON output has no blocking decision (TaskCompleted
 * and TeammateIdle read only `continue`, the elicitations an `action`, and WorktreeCreate reads a path).
 */
const BLOCKS_BY_EXIT_CODE_ONLY: ReadonlySet<EventName> = new Set(["TaskCompleted", "TeammateIdle", "Elicitation", "ElicitationResult", "WorktreeCreate"]);
/** Blockable events whose `continue: false` Claude Code discards: a block that also stops is still an exit 2. */
const DISCARDS_CONTINUE: ReadonlySet<EventName> = new Set(["Elicitation", "ElicitationResult", "ConfigChange", "TaskCreated"]);

/**
 * Turns an outcome into the hook protocol. A plain block is exit 2 with the reason on stderr. A block that comes
 * with more than exit 2 and stderr can say (system messages, context, event-specific fields of the hooks' JSON) is
 * answered in the JSON form instead, exit 0 with the decision inside, where the event has a JSON decision; so is a
 * PermissionRequest denial, which Claude Code takes only from JSON. Anything else worth saying is one JSON object
 * with exit 0; nothing to say is an empty exit 0.
 */
export function toHookProtocol(outcome: Outcome): HookProtocolReply {
  const stopping = !outcome.continue;
  const exit2 = (): HookProtocolReply => ({
    exitCode: 2,
    stdout: "",
    stderr: outcome.reason ?? outcome.stopReason ?? `blocked by qhooks (${outcome.event})`,
  });
  // A command WorktreeCreate hook answers with a path on stdout, never JSON: relay the path, or fail the creation.
  if (outcome.event === "WorktreeCreate") {
    if (outcome.blocked || stopping) return exit2();
    const path = lastPlainLine(outcome.hooks);
    return { exitCode: 0, stdout: path ?? "", stderr: "" };
  }

  const carriesContext = EVENT_TRAITS[outcome.event].carriesContext;
  const context = carriesContext ? outcome.additionalContext : [];
  const relayed = relayedFields(outcome.event, outcome.hooks, outcome.decision === "allow");
  // `continue: false` beats every decision and goes out in JSON, where the agent reads it.
  if (outcome.blocked && !(stopping && !DISCARDS_CONTINUE.has(outcome.event))) {
    const more =
      outcome.event === "PermissionRequest" ||
      outcome.systemMessages.length > 0 ||
      context.length > 0 ||
      Object.keys(relayed.specific).length > 0 ||
      Object.keys(relayed.topLevel).length > 0;
    if (!more || BLOCKS_BY_EXIT_CODE_ONLY.has(outcome.event)) return exit2();
  }

  const out: Record<string, unknown> = {};
  const specific: Record<string, unknown> = {};
  if (stopping) {
    out.continue = false;
    if (outcome.stopReason !== null) out.stopReason = outcome.stopReason;
  }
  if (outcome.systemMessages.length) out.systemMessage = outcome.systemMessages.join("\n");
  if (outcome.suppressOutput) out.suppressOutput = true;
  Object.assign(out, relayed.topLevel);
  Object.assign(specific, relayed.specific);

  switch (outcome.event) {
    case "PreToolUse":
    case "PreModelSwitch":
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
        if (outcome.decision === "allow" && relayed.updatedPermissions !== undefined) decision.updatedPermissions = relayed.updatedPermissions;
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
  if (context.length) specific.additionalContext = context.join("\n");
  if (Object.keys(specific).length) out.hookSpecificOutput = { hookEventName: outcome.event, ...specific };

  return { exitCode: 0, stdout: Object.keys(out).length ? JSON.stringify(out) : "", stderr: "" };
}
