import { hostEventNames } from "./hostEventNames.js";

/**
 * Gemini CLI's hook events (its hooks reference, docs/hooks/reference.md of google-gemini/gemini-cli) and the qhooks
 * events they are. Its model events have no qhooks equivalent: hooks written under them are warned about and skipped.
 */
export const GEMINI_EVENT_NAMES = hostEventNames(
  [
    ["BeforeTool", "PreToolUse"],
    ["AfterTool", "PostToolUse"],
    ["BeforeAgent", "UserPromptSubmit"],
    ["AfterAgent", "Stop"],
    ["SessionStart", "SessionStart"],
    ["SessionEnd", "SessionEnd"],
    ["PreCompress", "PreCompact"],
    ["Notification", "Notification"],
  ],
  ["BeforeModel", "AfterModel", "BeforeToolSelection"],
);
