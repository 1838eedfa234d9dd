/**
 * The shape a hook's host gives it its payload in, where that is not the payload as qhooks received it: Copilot CLI
 * gives a hook written under a PascalCase event name (`PreToolUse`) its VS Code-compatible payload (snake_case,
 * Claude Code's tool names), whatever shape the entry that called qhooks got.
 */
export type PayloadForm = "copilot-vscode";
