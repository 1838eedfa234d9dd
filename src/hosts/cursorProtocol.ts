import type { EventName } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";
import type { HookProtocolReply } from "../output/hookProtocol.js";
import { CURSOR_EVENT_NAMES } from "./cursorNames.js";
import { isJsonObject, type JsonObject } from "../json/jsonObject.js";

/** The one `version` of hooks.json Cursor documents. */
export const CURSOR_HOOKS_VERSION = 1;

/**
 * What the single hook Cursor calls answers, always exit 0 with one JSON object on stdout (or nothing): before a tool
 * (`beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`, `preToolUse`) `permission` allow, deny or ask with
 * `userMessage` (to the person) and `agentMessage` (to the agent); before a prompt `continue: false` with
 * `userMessage`; at `stop`, a block (keep going) is `followup_message`. `continue: false` stops the agent anywhere.
 */
export function cursorAnswer(outcome: Outcome): HookProtocolReply {
  const out: JsonObject = {};
  const reason = outcome.reason ?? `blocked by qhooks (${CURSOR_EVENT_NAMES.toHost.get(outcome.event) ?? outcome.event})`;
  if (outcome.event === "PreToolUse") {
    if (outcome.blocked) Object.assign(out, { permission: "deny", userMessage: reason, agentMessage: reason });
    else if (outcome.decision === "allow" || outcome.decision === "ask") {
      out.permission = outcome.decision;
      if (outcome.reason !== null) Object.assign(out, { userMessage: outcome.reason, agentMessage: outcome.reason });
    }
  } else if (outcome.event === "UserPromptSubmit" && outcome.blocked) Object.assign(out, { continue: false, userMessage: reason });
  else if (outcome.event === "Stop" && outcome.blocked) out.followup_message = reason;
  if (!outcome.continue) {
    out.continue = false;
    if (outcome.stopReason !== null && out.userMessage === undefined) out.userMessage = outcome.stopReason;
  }
  return { exitCode: 0, stdout: Object.keys(out).length > 0 ? JSON.stringify(out) : "", stderr: "" };
}

/**
 * A Cursor hook's stdout JSON in the shape qhooks reads (Claude Code's): `permission` becomes the PreToolUse
 * `permissionDecision` (its reason the `agentMessage`, else the `userMessage`); a prompt's `continue: false` a block of
 * the prompt; `followup_message` at stop a block that keeps the agent going. Anything else is left for qhooks' own
 * checks to name.
 */
export function cursorHookOutput(event: EventName, output: unknown): unknown {
  if (!isJsonObject(output)) return output;
  const { permission, userMessage, agentMessage, followup_message, ...rest } = output;
  const said = typeof agentMessage === "string" ? agentMessage : typeof userMessage === "string" ? userMessage : undefined;
  if (event === "PreToolUse" && typeof permission === "string") {
    const specific: JsonObject = { hookEventName: "PreToolUse", permissionDecision: permission };
    if (said !== undefined) specific.permissionDecisionReason = said;
    return { ...rest, hookSpecificOutput: specific };
  }
  if (event === "UserPromptSubmit" && rest.continue === false) {
    const { continue: _stops, ...others } = rest;
    return { ...others, decision: "block", ...(said !== undefined ? { reason: said } : {}) };
  }
  if (event === "Stop" && typeof followup_message === "string" && followup_message !== "") return { ...rest, decision: "block", reason: followup_message };
  return rest;
}

/** Keys of a Cursor hook entry qhooks reads: `command`, `timeout`, `matcher` (tool events), `type`, `failClosed`. */
const ENTRY_KEYS = new Set(["command", "timeout", "matcher", "type", "failClosed"]);

/**
 * One entry of Cursor's hooks.json (a hook, not a group) as a matcher group: a narrowed event's entry matches its
 * tool (its own `matcher` is not read there and is warned about); `failClosed: true` is qhooks' `onFailure: "block"`.
 * An entry that is a group already (qhooks' shape) is kept as it is.
 */
export function cursorHookEntry(hostEvent: string, entry: unknown, warn: (key: string, message: string) => void): unknown {
  if (!isJsonObject(entry) || Array.isArray(entry.hooks)) return entry;
  const { matcher, failClosed, ...hook } = entry;
  const narrowed = CURSOR_EVENT_NAMES.narrowed.get(hostEvent);
  if (narrowed !== undefined && matcher !== undefined)
    warn("matcher", `not read on ${hostEvent}: its hooks run for every ${narrowed.matcher === "Shell" ? "shell command" : `${narrowed.matcher} call`}`);
  const handler: JsonObject = { type: "command", ...hook };
  if (failClosed === true) handler.onFailure = "block";
  for (const key of Object.keys(entry)) if (!ENTRY_KEYS.has(key)) delete handler[key];
  const unknown = Object.keys(entry).filter((key) => !ENTRY_KEYS.has(key));
  if (unknown.length > 0) warn(unknown[0]!, `unknown key${unknown.length > 1 ? `s ${unknown.join(", ")}` : ""}, ignored`);
  const group: JsonObject = { hooks: [handler] };
  const chosen = narrowed?.matcher ?? matcher;
  if (chosen !== undefined) group.matcher = chosen;
  return group;
}

/** A `version` other than the one Cursor documents: one warning, the hooks load as version 1's. */
export function cursorDocumentWarnings(document: Readonly<JsonObject>): ReadonlyArray<{ key: string; message: string }> {
  const version = document.version;
  if (version === undefined || version === CURSOR_HOOKS_VERSION) return [];
  return [
    {
      key: "version",
      message: `${JSON.stringify(version)} is not a hooks.json version qhooks knows (${CURSOR_HOOKS_VERSION}); its hooks are read as version ${CURSOR_HOOKS_VERSION}'s`,
    },
  ];
}
