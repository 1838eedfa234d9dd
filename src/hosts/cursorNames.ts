import { hostEventNames } from "./hostEventNames.js";

/** The tool name qhooks gives an MCP call Cursor reports (Claude Code's `mcp__` prefix), and the matcher for them all. */
export const CURSOR_MCP_PREFIX = "mcp__";

/**
 * Cursor's hook events (its hooks docs, cursor.com/docs/agent/hooks) and the qhooks events they are. Its older
 * events name one tool of a tool event (`beforeShellExecution` is PreToolUse for `Shell`): their hooks are matched
 * against that tool. Its agent-thought and Tab events have no qhooks equivalent: warned about and skipped.
 */
export const CURSOR_EVENT_NAMES = hostEventNames(
  [
    ["preToolUse", "PreToolUse"],
    ["postToolUse", "PostToolUse"],
    ["postToolUseFailure", "PostToolUseFailure"],
    ["beforeSubmitPrompt", "UserPromptSubmit"],
    ["stop", "Stop"],
    ["sessionStart", "SessionStart"],
    ["sessionEnd", "SessionEnd"],
    ["subagentStart", "SubagentStart"],
    ["subagentStop", "SubagentStop"],
    ["preCompact", "PreCompact"],
  ],
  ["afterAgentResponse", "afterAgentThought", "beforeTabFileRead", "afterTabFileEdit"],
  [
    ["beforeShellExecution", "PreToolUse", "Shell"],
    ["beforeMCPExecution", "PreToolUse", `${CURSOR_MCP_PREFIX}.*`],
    ["beforeReadFile", "PreToolUse", "Read"],
    ["afterShellExecution", "PostToolUse", "Shell"],
    ["afterMCPExecution", "PostToolUse", `${CURSOR_MCP_PREFIX}.*`],
    ["afterFileEdit", "PostToolUse", "Write"],
  ],
);
