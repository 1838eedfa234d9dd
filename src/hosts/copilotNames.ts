import { hostEventNames } from "./hostEventNames.js";

/**
 * GitHub Copilot CLI's hook events (GitHub's hooks reference for Copilot CLI and the cloud agent) and the qhooks events
 * they are. `errorOccurred` and `userPromptTransformed` (a rewrite of the model-facing prompt) have no qhooks
 * equivalent: hooks written under them are warned about and skipped.
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
  ["errorOccurred", "userPromptTransformed"],
);

/** The events on which an entry's `matcher` filters (a regex on the tool name, trigger, agent or notification type). */
export const COPILOT_MATCHER_EVENTS: ReadonlySet<string> = new Set([
  "preToolUse",
  "postToolUse",
  "permissionRequest",
  "preCompact",
  "subagentStart",
  "notification",
]);
