/**
 * Every lifecycle event qhooks knows: the twelve of the classic protocol first, then the ones current Claude Code
 * adds, in the order of its hooks reference. Kept free of zod so that the CLI can check an event name before it
 * loads anything heavier; `EventNameSchema` (events.ts) is built from this list.
 */
export const CLASSIC_EVENT_NAMES = [
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

export const EVENT_NAMES = [
  ...CLASSIC_EVENT_NAMES,
  "Setup",
  "InstructionsLoaded",
  "UserPromptExpansion",
  "MessageDisplay",
  "PermissionDenied",
  "PostToolBatch",
  "TaskCreated",
  "TaskCompleted",
  "StopFailure",
  "TeammateIdle",
  "ConfigChange",
  "CwdChanged",
  "DirectoryAdded",
  "FileChanged",
  "WorktreeCreate",
  "WorktreeRemove",
  "PostCompact",
  "PreModelSwitch",
  "PostModelSwitch",
  "Elicitation",
  "ElicitationResult",
] as const;
