import { CURSOR_EVENT_NAMES, CURSOR_MCP_PREFIX } from "./cursorNames.js";
import { objectOrJsonText, type JsonObject } from "../json/jsonObject.js";

/** The tool call a narrowed event stands for, from its own fields (Cursor's `command`, `file_path`...). */
function toolCall(hostEvent: string, p: Readonly<JsonObject>): JsonObject {
  switch (hostEvent) {
    case "beforeShellExecution":
      return { tool_name: "Shell", tool_input: { command: p.command, cwd: p.cwd } };
    case "afterShellExecution":
      return { tool_name: "Shell", tool_input: { command: p.command, cwd: p.cwd }, tool_response: { output: p.output, duration: p.duration } };
    case "beforeReadFile":
      return { tool_name: "Read", tool_input: { file_path: p.file_path } };
    case "afterFileEdit":
      return { tool_name: "Write", tool_input: { file_path: p.file_path, edits: p.edits }, tool_response: {} };
    case "beforeMCPExecution":
    case "afterMCPExecution": {
      const name = typeof p.tool_name === "string" ? p.tool_name : "unknown";
      const call: JsonObject = {
        tool_name: name.startsWith(CURSOR_MCP_PREFIX) ? name : `${CURSOR_MCP_PREFIX}${name}`,
        tool_input: objectOrJsonText(p.tool_input),
      };
      if (hostEvent === "afterMCPExecution") call.tool_response = objectOrJsonText(p.result_json);
      return call;
    }
    default:
      return {};
  }
}

/**
 * A Cursor payload in the shape qhooks checks and matches (Claude Code's): `conversation_id` is the session, the first
 * workspace root the working directory when none is named, `tool_output` the tool's response, and the narrowed events' own fields the tool call they
 * stand for. Fields already there are kept: a payload in Claude Code's shape passes as it is.
 */
export function cursorPayload(fields: Readonly<JsonObject>): JsonObject {
  const hostEvent = typeof fields.hook_event_name === "string" ? fields.hook_event_name : "";
  const roots = Array.isArray(fields.workspace_roots) ? fields.workspace_roots : [];
  const filled: JsonObject = {};
  if (fields.session_id === undefined && typeof fields.conversation_id === "string") filled.session_id = fields.conversation_id;
  if (fields.cwd === undefined && typeof roots[0] === "string") filled.cwd = roots[0];
  // postToolUse names the tool's result `tool_output`: qhooks' `tool_response`.
  if (fields.tool_response === undefined && fields.tool_output !== undefined) filled.tool_response = fields.tool_output;
  // An MCP event names the MCP tool in `tool_name` already: it gets qhooks' prefix.
  const mcp = hostEvent.endsWith("MCPExecution") && !(typeof fields.tool_name === "string" && fields.tool_name.startsWith(CURSOR_MCP_PREFIX));
  if (CURSOR_EVENT_NAMES.narrowed.has(hostEvent) && (fields.tool_name === undefined || mcp)) Object.assign(filled, toolCall(hostEvent, fields));
  return Object.keys(filled).length === 0 ? { ...fields } : { ...fields, ...filled };
}
