import type { EventName } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";
import type { HookProtocolReply } from "../output/hookProtocol.js";
import { COPILOT_EVENT_NAMES } from "./copilotNames.js";
import { isJsonObject, objectOrJsonText, type JsonObject } from "../json/jsonObject.js";
import { shellQuoted } from "../text/shellWord.js";

/** The one `version` of a hooks file Copilot CLI documents. */
export const COPILOT_HOOKS_VERSION = 1;

/** The session a payload without `sessionId` is logged under (Copilot CLI's documented payloads name none). */
export const COPILOT_UNKNOWN_SESSION = "copilot-session";

/**
 * A Copilot CLI payload (camelCase: `toolName`, `toolArgs` as JSON text, `toolResult`, `sessionId`) in the shape
 * qhooks checks and matches (Claude Code's). Fields already there are kept: a payload in Claude Code's shape passes.
 */
export function copilotPayload(fields: Readonly<JsonObject>): JsonObject {
  const filled: JsonObject = {};
  if (fields.session_id === undefined)
    filled.session_id = typeof fields.sessionId === "string" && fields.sessionId !== "" ? fields.sessionId : COPILOT_UNKNOWN_SESSION;
  if (fields.tool_name === undefined && typeof fields.toolName === "string") filled.tool_name = fields.toolName;
  if (fields.tool_input === undefined && fields.toolArgs !== undefined) filled.tool_input = objectOrJsonText(fields.toolArgs);
  if (fields.tool_response === undefined && fields.toolResult !== undefined) filled.tool_response = fields.toolResult;
  return { ...fields, ...filled };
}

/**
 * What the single hook Copilot CLI calls answers: it reads only a `preToolUse` hook's stdout, one JSON object with
 * `permissionDecision` (deny, allow or ask) and `permissionDecisionReason`; every other event's output is ignored, so
 * the answer there is empty. Always exit 0.
 */
export function copilotAnswer(outcome: Outcome): HookProtocolReply {
  if (outcome.event !== "PreToolUse") return { exitCode: 0, stdout: "", stderr: "" };
  const out: JsonObject = {};
  if (outcome.blocked) {
    out.permissionDecision = "deny";
    out.permissionDecisionReason = outcome.reason ?? `blocked by qhooks (${COPILOT_EVENT_NAMES.toHost.get(outcome.event)})`;
  } else if (outcome.decision === "allow" || outcome.decision === "ask") {
    out.permissionDecision = outcome.decision;
    if (outcome.reason !== null) out.permissionDecisionReason = outcome.reason;
  }
  return { exitCode: 0, stdout: Object.keys(out).length > 0 ? JSON.stringify(out) : "", stderr: "" };
}

/**
 * A Copilot CLI hook's stdout JSON in the shape qhooks reads (Claude Code's): on preToolUse, `permissionDecision` and
 * its reason become `hookSpecificOutput`'s. Anything else is left for qhooks' own checks to name.
 */
export function copilotHookOutput(event: EventName, output: unknown): unknown {
  if (!isJsonObject(output) || event !== "PreToolUse") return output;
  const { permissionDecision, permissionDecisionReason, ...rest } = output;
  if (typeof permissionDecision !== "string") return output;
  const specific: JsonObject = { hookEventName: "PreToolUse", permissionDecision };
  if (typeof permissionDecisionReason === "string") specific.permissionDecisionReason = permissionDecisionReason;
  return { ...rest, hookSpecificOutput: specific };
}

/** Keys of a Copilot CLI hook entry qhooks reads or knows. */
const ENTRY_KEYS = new Set(["type", "bash", "powershell", "cwd", "env", "timeoutSec", "comment"]);

/**
 * One entry of a Copilot CLI hooks file (a hook, not a group) as a matcher group of one command hook matching every
 * tool: `bash` is the command (`powershell` is Windows' and is not read), `timeoutSec` the timeout, `cwd` (relative
 * to the project) and `env` are put in front of the command (`cd 'dir' && K='v' ...`). An entry that is a group
 * already (qhooks' shape) is kept as it is.
 */
export function copilotHookEntry(_hostEvent: string, entry: unknown, warn: (key: string, message: string) => void): unknown {
  if (!isJsonObject(entry) || Array.isArray(entry.hooks)) return entry;
  const unknown = Object.keys(entry).filter((key) => !ENTRY_KEYS.has(key));
  if (unknown.length > 0) warn(unknown[0]!, `unknown key${unknown.length > 1 ? `s ${unknown.join(", ")}` : ""}, ignored`);
  const handler: JsonObject = { type: entry.type ?? "command" };
  if (typeof entry.bash === "string") {
    let command = entry.bash;
    if (isJsonObject(entry.env)) {
      const pairs = Object.entries(entry.env).filter(([k, v]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && typeof v === "string");
      if (pairs.length > 0) command = `export ${pairs.map(([k, v]) => `${k}=${shellQuoted(v as string)}`).join(" ")}; ${command}`;
    }
    if (typeof entry.cwd === "string" && entry.cwd !== "" && entry.cwd !== ".") command = `cd ${shellQuoted(entry.cwd)} && ${command}`;
    handler.command = command;
  } else if (entry.bash !== undefined) handler.command = entry.bash;
  if (entry.timeoutSec !== undefined) handler.timeout = entry.timeoutSec;
  return { hooks: [handler] };
}

/** A `version` other than the one Copilot CLI documents: one warning naming it, the hooks load as version 1's. */
export function copilotDocumentWarnings(document: Readonly<JsonObject>): ReadonlyArray<{ key: string; message: string }> {
  const version = document.version;
  if (version === undefined || version === COPILOT_HOOKS_VERSION) return [];
  return [
    {
      key: "version",
      message: `${JSON.stringify(version)} is not a Copilot CLI hooks version qhooks knows (${COPILOT_HOOKS_VERSION}); its hooks are read as version ${COPILOT_HOOKS_VERSION}'s`,
    },
  ];
}
