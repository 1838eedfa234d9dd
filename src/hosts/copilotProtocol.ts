import type { EventName } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";
import type { HookProtocolReply } from "../output/hookProtocol.js";
import { COPILOT_CLAUDE_MATCHER_EVENTS, COPILOT_EVENT_NAMES, COPILOT_MATCHER_EVENTS } from "./copilotNames.js";
import { copilotClaudeMatcher } from "./copilotClaudeMatcher.js";
import { isJsonObject, objectOrJsonText, type JsonObject } from "../json/jsonObject.js";
import { shellQuoted } from "../text/shellWord.js";

/** The one `version` of a hooks file Copilot CLI documents. */
export const COPILOT_HOOKS_VERSION = 1;

/** The session a payload without `sessionId` is logged under (Copilot CLI's documented payloads name none). */
export const COPILOT_UNKNOWN_SESSION = "copilot-session";

/**
 * A Copilot CLI payload (camelCase: `toolName`, `toolArgs` as JSON text or an object, `toolResult`, `sessionId`,
 * `agentName`, `transcriptPath`...) in the shape
 * qhooks checks and matches (Claude Code's). Fields already there are kept: a payload in Claude Code's shape passes.
 */
export function copilotPayload(fields: Readonly<JsonObject>): JsonObject {
  const filled: JsonObject = {};
  if (fields.session_id === undefined)
    filled.session_id = typeof fields.sessionId === "string" && fields.sessionId !== "" ? fields.sessionId : COPILOT_UNKNOWN_SESSION;
  if (fields.tool_name === undefined && typeof fields.toolName === "string") filled.tool_name = fields.toolName;
  // `toolArgs` on the tool events, `toolInput` on a permission request.
  const args = fields.toolArgs ?? fields.toolInput;
  if (fields.tool_input === undefined && args !== undefined) filled.tool_input = objectOrJsonText(args);
  if (fields.tool_response === undefined && fields.toolResult !== undefined) filled.tool_response = fields.toolResult;
  // The subagent events name the agent (`agentType` when it stops, only `agentName` when it starts); the stops and
  // compaction carry the transcript; a stopping subagent its last answer.
  const agent = fields.agentType ?? fields.agentName;
  if (fields.agent_type === undefined && typeof agent === "string") filled.agent_type = agent;
  if (fields.agent_id === undefined && typeof fields.agentId === "string") filled.agent_id = fields.agentId;
  if (fields.transcript_path === undefined && typeof fields.transcriptPath === "string") filled.transcript_path = fields.transcriptPath;
  if (fields.custom_instructions === undefined && typeof fields.customInstructions === "string") filled.custom_instructions = fields.customInstructions;
  if (fields.last_assistant_message === undefined && typeof fields.response === "string") filled.last_assistant_message = fields.response;
  return { ...fields, ...filled };
}

/** The events whose `additionalContext` (top level of the answer) Copilot CLI injects for the model. */
const CONTEXT_EVENTS: ReadonlySet<EventName> = new Set(["PostToolUse", "PostToolUseFailure", "SessionStart", "SubagentStart", "Notification"]);

/**
 * What the single hook Copilot CLI calls answers, always exit 0 with one JSON object on stdout (or nothing), in the
 * fields its hooks reference gives each event: before a tool `permissionDecision` (deny, allow or ask) with
 * `permissionDecisionReason` and the rewritten `modifiedArgs`; on a permission request `behavior` (allow or deny)
 * with `message`, and `interrupt: true` where qhooks stops the agent; at `agentStop` and `subagentStop` a block
 * (keep going) is `decision: "block"` with `reason` as the next prompt; `additionalContext` where it reaches the
 * model. A submitted prompt's and a session end's output is dropped by Copilot CLI: the answer there is empty.
 */
export function copilotAnswer(outcome: Outcome): HookProtocolReply {
  const out: JsonObject = {};
  const reason = outcome.reason ?? `blocked by qhooks (${COPILOT_EVENT_NAMES.toHost.get(outcome.event)})`;
  switch (outcome.event) {
    case "PreToolUse":
      if (outcome.blocked) Object.assign(out, { permissionDecision: "deny", permissionDecisionReason: reason });
      else if (outcome.decision === "allow" || outcome.decision === "ask") {
        out.permissionDecision = outcome.decision;
        if (outcome.reason !== null) out.permissionDecisionReason = outcome.reason;
      }
      if (outcome.updatedInput !== null && !outcome.blocked) out.modifiedArgs = outcome.updatedInput;
      break;
    case "PermissionRequest":
      if (outcome.blocked) Object.assign(out, { behavior: "deny", message: reason }, outcome.continue ? {} : { interrupt: true });
      else if (outcome.decision === "allow") out.behavior = "allow";
      break;
    case "Stop":
    case "SubagentStop":
      if (outcome.blocked) Object.assign(out, { decision: "block", reason });
      break;
    default:
      break;
  }
  if (CONTEXT_EVENTS.has(outcome.event) && outcome.additionalContext.length > 0) out.additionalContext = outcome.additionalContext.join("\n");
  return { exitCode: 0, stdout: Object.keys(out).length > 0 ? JSON.stringify(out) : "", stderr: "" };
}

/**
 * A Copilot CLI hook's stdout JSON in the shape qhooks reads (Claude Code's): before a tool, `permissionDecision` and
 * its reason become `hookSpecificOutput`'s and `modifiedArgs` the rewritten input; on a permission request
 * `behavior`, `message` and `interrupt` become its `decision`; `additionalContext` at the top goes where Claude Code
 * has it; at a stop, `decision: "allow"` (Copilot CLI's "let it stop") is no decision. `decision: "block"` and
 * `reason` are Claude Code's already. Anything else is left for qhooks' own checks to name.
 */
export function copilotHookOutput(event: EventName, output: unknown): unknown {
  if (!isJsonObject(output)) return output;
  const out: JsonObject = { ...output };
  const specific: JsonObject = isJsonObject(output.hookSpecificOutput) ? { ...output.hookSpecificOutput } : {};
  const take = (key: string): unknown => {
    const value = out[key];
    delete out[key];
    return value;
  };
  if (event === "PreToolUse") {
    const decision = take("permissionDecision");
    const reason = take("permissionDecisionReason");
    const args = take("modifiedArgs");
    if (typeof decision === "string") specific.permissionDecision = decision;
    if (typeof reason === "string") specific.permissionDecisionReason = reason;
    if (isJsonObject(args)) specific.updatedInput = args;
  } else if (event === "PermissionRequest" && typeof out.behavior === "string") {
    const behavior = take("behavior");
    const message = take("message");
    const interrupt = take("interrupt");
    specific.decision = { behavior, ...(typeof message === "string" ? { message } : {}), ...(interrupt === true ? { interrupt: true } : {}) };
  } else if ((event === "Stop" || event === "SubagentStop") && out.decision === "allow") {
    delete out.decision;
  }
  if (typeof out.additionalContext === "string" && CONTEXT_EVENTS.has(event)) specific.additionalContext = take("additionalContext");
  if (Object.keys(specific).length > 0) out.hookSpecificOutput = { hookEventName: event, ...specific };
  return out;
}

/** Keys of a Copilot CLI hook entry qhooks reads or knows. */
const ENTRY_KEYS = new Set([
  "type",
  "bash",
  "command",
  "powershell",
  "exec",
  "args",
  "cwd",
  "env",
  "timeoutSec",
  "timeout",
  "matcher",
  "url",
  "headers",
  "allowedEnvVars",
  "prompt",
  "comment",
]);

/** A Copilot CLI `matcher` is a regex that must match the whole value; a plain list of names already does. */
const wholeValue = (matcher: string): string => (/^[A-Za-z0-9_|]*$/.test(matcher) ? matcher : `^(?:${matcher})$`);

/** The command line of a command entry: `bash`, else the cross-platform `command`, else `exec` and `args` quoted. */
function commandLine(entry: Readonly<JsonObject>): unknown {
  if (entry.bash !== undefined) return entry.bash;
  if (entry.command !== undefined) return entry.command;
  if (typeof entry.exec === "string") {
    const args = Array.isArray(entry.args) ? entry.args.filter((a): a is string => typeof a === "string") : [];
    return [entry.exec, ...args].map(shellQuoted).join(" ");
  }
  return undefined;
}

/**
 * One entry of a Copilot CLI hooks file (a hook, not a group) as a matcher group of one hook: a command entry's
 * `bash` (else `command`, else `exec` with its `args`, run without a shell's reading of them) is the command, with
 * `cwd` (relative to the project) and `env` put in front of it (`cd 'dir' && export K='v'; ...`); `timeoutSec` (else
 * `timeout`) the timeout; an `http` entry posts to its `url` as qhooks' http hooks do; `matcher` filters on the events
 * Copilot CLI reads it on. A `prompt` entry (text typed into a new session) is nothing qhooks can run: one warning.
 * An entry that is a group already (Claude Code's shape, as in `.claude/settings.json`) is kept as it is. Under a
 * PascalCase `PreToolUse` or `PermissionRequest` the matcher is read as Claude Code's (copilotClaudeMatcher.ts).
 */
export function copilotHookEntry(hostEvent: string, entry: unknown, warn: (key: string, message: string) => void): unknown {
  if (!isJsonObject(entry)) return entry;
  const claudeMatcher = COPILOT_CLAUDE_MATCHER_EVENTS.has(hostEvent);
  if (Array.isArray(entry.hooks)) {
    if (!claudeMatcher || entry.matcher === undefined) return entry;
    const { matcher: _, ...rest } = entry;
    const read = copilotClaudeMatcher(entry.matcher);
    return read === undefined ? rest : { ...rest, matcher: read };
  }
  const unknown = Object.keys(entry).filter((key) => !ENTRY_KEYS.has(key));
  if (unknown.length > 0) warn(unknown[0]!, `unknown key${unknown.length > 1 ? `s ${unknown.join(", ")}` : ""}, ignored`);
  const group: JsonObject = {};
  if (claudeMatcher) {
    const read = copilotClaudeMatcher(entry.matcher);
    if (read !== undefined) group.matcher = read;
  } else if (typeof entry.matcher === "string" && entry.matcher.trim() !== "") {
    if (COPILOT_MATCHER_EVENTS.has(hostEvent)) group.matcher = wholeValue(entry.matcher.trim());
    else warn("matcher", `not read on ${hostEvent}: Copilot CLI runs its hooks for every ${hostEvent} event`);
  }
  const timeout = entry.timeoutSec ?? entry.timeout;
  if (entry.type === "prompt") {
    warn("type", "a prompt entry types text into a new Copilot CLI session; qhooks has nothing to run for it, skipped");
    return { ...group, hooks: [] };
  }
  if (entry.type === "http") {
    const handler: JsonObject = { type: "http", url: entry.url };
    if (entry.headers !== undefined) handler.headers = entry.headers;
    if (entry.allowedEnvVars !== undefined) handler.allowedEnvVars = entry.allowedEnvVars;
    if (timeout !== undefined) handler.timeout = timeout;
    return { ...group, hooks: [handler] };
  }
  const handler: JsonObject = { type: entry.type ?? "command" };
  let command = commandLine(entry);
  if (typeof command === "string") {
    if (isJsonObject(entry.env)) {
      const pairs = Object.entries(entry.env).filter(([k, v]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && typeof v === "string");
      if (pairs.length > 0) command = `export ${pairs.map(([k, v]) => `${k}=${shellQuoted(v as string)}`).join(" ")}; ${command}`;
    }
    if (typeof entry.cwd === "string" && entry.cwd !== "" && entry.cwd !== ".") command = `cd ${shellQuoted(entry.cwd)} && ${command}`;
  }
  if (command !== undefined) handler.command = command;
  if (timeout !== undefined) handler.timeout = timeout;
  return { ...group, hooks: [handler] };
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
