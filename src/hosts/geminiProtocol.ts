import { EVENT_TRAITS, type EventName } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";
import type { HookProtocolReply } from "../output/hookProtocol.js";
import { GEMINI_EVENT_NAMES } from "./geminiNames.js";
import { isJsonObject, type JsonObject } from "../json/jsonObject.js";

/** The events whose `decision: "deny"` (or exit 2) Gemini CLI acts on: the tool, the prompt and the response. */
const BLOCKS: ReadonlySet<EventName> = new Set(["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"]);

const hostName = (event: EventName): string => GEMINI_EVENT_NAMES.toHost.get(event) ?? event;

/**
 * What the single hook Gemini CLI calls answers (its hooks reference): a plain block is exit 2 with the reason on
 * stderr; anything more is one JSON object on stdout, exit 0, with `decision: "deny"` and `reason` for a block,
 * `continue: false` and `stopReason` to stop, `systemMessage` (shown to the person on every event, notices included),
 * and `hookSpecificOutput` with `additionalContext` and, before a tool, the rewritten `tool_input`.
 */
export function geminiAnswer(outcome: Outcome, notices: readonly string[] = []): HookProtocolReply {
  const messages = [...outcome.systemMessages, ...notices];
  const context = EVENT_TRAITS[outcome.event].carriesContext ? outcome.additionalContext : [];
  const stopping = !outcome.continue;
  const blocked = outcome.blocked && BLOCKS.has(outcome.event);
  const rewrites = outcome.event === "PreToolUse" && outcome.updatedInput !== null;
  if (blocked && !stopping && messages.length === 0 && context.length === 0 && !rewrites) {
    return { exitCode: 2, stdout: "", stderr: outcome.reason ?? `blocked by qhooks (${hostName(outcome.event)})` };
  }
  const out: JsonObject = {};
  if (stopping) {
    out.continue = false;
    if (outcome.stopReason !== null) out.stopReason = outcome.stopReason;
  }
  if (messages.length > 0) out.systemMessage = messages.join("\n");
  if (outcome.suppressOutput) out.suppressOutput = true;
  if (blocked) out.decision = "deny";
  else if (outcome.event === "PreToolUse" && (outcome.decision === "allow" || outcome.decision === "ask")) out.decision = outcome.decision;
  if (out.decision !== undefined && outcome.reason !== null) out.reason = outcome.reason;
  const specific: JsonObject = {};
  if (context.length > 0) specific.additionalContext = context.join("\n");
  if (rewrites) specific.tool_input = outcome.updatedInput;
  if (Object.keys(specific).length > 0) out.hookSpecificOutput = { hookEventName: hostName(outcome.event), ...specific };
  return { exitCode: 0, stdout: Object.keys(out).length > 0 ? JSON.stringify(out) : "", stderr: "" };
}

const PERMISSION: Readonly<Record<string, string>> = { deny: "deny", block: "deny", allow: "allow", approve: "allow", ask: "ask" };

/**
 * A Gemini CLI hook's stdout JSON in the shape qhooks reads (Claude Code's): `decision: "deny"` (or `"block"`)
 * becomes a PreToolUse `permissionDecision` or another event's `decision: "block"`; `hookSpecificOutput.tool_input`,
 * which Gemini CLI merges over the model's arguments, becomes the merged `updatedInput`; `hookEventName` is read in
 * Gemini CLI's words. What qhooks does not read is left for its own checks to name.
 */
export function geminiHookOutput(event: EventName, output: unknown, payload: Readonly<Record<string, unknown>>): unknown {
  if (!isJsonObject(output)) return output;
  const { decision, hookSpecificOutput, ...rest } = output;
  const out: JsonObject = { ...rest };
  const specific: JsonObject | null = isJsonObject(hookSpecificOutput) ? { ...hookSpecificOutput } : null;
  if (hookSpecificOutput !== undefined && specific === null) out.hookSpecificOutput = hookSpecificOutput;
  if (specific !== null && typeof specific.hookEventName === "string")
    specific.hookEventName = GEMINI_EVENT_NAMES.toQhooks.get(specific.hookEventName) ?? specific.hookEventName;
  const permission = typeof decision === "string" ? PERMISSION[decision] : undefined;
  if (event === "PreToolUse") {
    const tool = specific ?? {};
    if (permission !== undefined) {
      tool.permissionDecision = permission;
      if (typeof rest.reason === "string") tool.permissionDecisionReason = rest.reason;
    } else if (decision !== undefined) out.decision = decision;
    if (isJsonObject(tool.tool_input)) {
      const before = isJsonObject(payload.tool_input) ? payload.tool_input : {};
      tool.updatedInput = { ...before, ...tool.tool_input };
      delete tool.tool_input;
    }
    if (Object.keys(tool).length > 0) out.hookSpecificOutput = { ...tool, hookEventName: tool.hookEventName ?? event };
    return out;
  }
  if (permission === "deny" && EVENT_TRAITS[event].blockDecision !== null) out.decision = "block";
  else if (decision !== undefined && permission !== "allow") out.decision = decision;
  if (specific !== null) out.hookSpecificOutput = { ...specific, hookEventName: specific.hookEventName ?? event };
  return out;
}
