/**
 * The twelve lifecycle events, in the order of contract 2.1. Kept free of zod so that the CLI can check an event
 * name before it loads anything heavier; `EventNameSchema` (events.ts) is built from this list.
 */
export const EVENT_NAMES = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SubagentStart",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
] as const;
