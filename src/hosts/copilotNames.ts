import { hostEventNames } from "./hostEventNames.js";

/**
 * GitHub Copilot CLI's hook events (GitHub's hooks reference for Copilot CLI and the cloud agent) and the qhooks events
 * they are. `errorOccurred` and `userPromptTransformed` (a rewrite of the model-facing prompt) have no qhooks
 * equivalent: hooks written under them are warned about and skipped. Copilot CLI also reads the PascalCase names of
 * VS Code's format (`PreToolUse`, `Stop`...: the ones its reference lists, as in Claude Code's files) as the same events.
 */
export const COPILOT_EVENT_NAMES = hostEventNames(
  [
    ["preToolUse", "PreToolUse"],
    ["permissionRequest", "PermissionRequest"],
    ["postToolUse", "PostToolUse"],
    ["postToolUseFailure", "PostToolUseFailure"],
    ["userPromptSubmitted", "UserPromptSubmit"],
    ["sessionStart", "SessionStart"],
    ["sessionEnd", "SessionEnd"],
    ["agentStop", "Stop"],
    ["subagentStart", "SubagentStart"],
    ["subagentStop", "SubagentStop"],
    ["preCompact", "PreCompact"],
    ["notification", "Notification"],
  ],
  ["errorOccurred", "userPromptTransformed", "ErrorOccurred"],
  [],
  [
    ["PreToolUse", "PreToolUse"],
    ["PermissionRequest", "PermissionRequest"],
    ["PostToolUse", "PostToolUse"],
    ["PostToolUseFailure", "PostToolUseFailure"],
    ["UserPromptSubmit", "UserPromptSubmit"],
    ["SessionStart", "SessionStart"],
    ["SessionEnd", "SessionEnd"],
    ["Stop", "Stop"],
    ["SubagentStop", "SubagentStop"],
    ["PreCompact", "PreCompact"],
  ],
);

/**
 * The PascalCase events on which a `matcher` is read as Claude Code's (`Bash`, `Edit|Write`, `*`), on Claude Code's
 * tool names: Copilot CLI's hooks reference says so of PreToolUse and PermissionRequest; on PostToolUse and
 * PostToolUseFailure (Claude Code's files' formatters) it says nothing, and this reading fires wherever either
 * Claude Code's names or Copilot CLI's own would (copilotClaudeMatcher.ts), so no hook runs less than under it.
 */
export const COPILOT_CLAUDE_MATCHER_EVENTS: ReadonlySet<string> = new Set(["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"]);

/** Copilot CLI's tools that have a Claude Code name (its hooks reference's table); the others keep their own names. */
export const COPILOT_CLAUDE_TOOLS: ReadonlyArray<readonly [runtime: string, claude: string]> = [
  ["bash", "Bash"],
  ["powershell", "Bash"],
  ["view", "Read"],
  ["create", "Write"],
  ["edit", "Edit"],
  ["str_replace_editor", "Edit"],
  ["apply_patch", "Edit"],
  ["grep", "Grep"],
  ["rg", "Grep"],
  ["glob", "Glob"],
  ["web_fetch", "WebFetch"],
  ["web_search", "WebSearch"],
  ["ask_user", "AskUserQuestion"],
  ["update_todo", "TodoWrite"],
  ["task", "Agent"],
  ["task", "Task"],
];

/** The events on which an entry's `matcher` filters (a regex on the tool name, trigger, agent or notification type). */
export const COPILOT_MATCHER_EVENTS: ReadonlySet<string> = new Set([
  "preToolUse",
  "postToolUse",
  "permissionRequest",
  "preCompact",
  "subagentStart",
  "notification",
  // The PascalCase names Copilot CLI reads a matcher on (PreToolUse and PermissionRequest's are Claude Code's).
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PreCompact",
]);
