import { hostEventNames } from "./hostEventNames.js";

/**
 * GitHub Copilot CLI's hook events (its hooks configuration reference, docs.github.com/copilot/reference/hooks-configuration)
 * and the qhooks events they are. `errorOccurred` has no qhooks equivalent: hooks written under it are warned about
 * and skipped.
 */
export const COPILOT_EVENT_NAMES = hostEventNames(
  [
    ["preToolUse", "PreToolUse"],
    ["postToolUse", "PostToolUse"],
    ["userPromptSubmitted", "UserPromptSubmit"],
    ["sessionStart", "SessionStart"],
    ["sessionEnd", "SessionEnd"],
    ["agentStop", "Stop"],
    ["subagentStop", "SubagentStop"],
  ],
  ["errorOccurred"],
);
