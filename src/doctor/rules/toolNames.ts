/**
 * Tool names a matcher of a tool event may name: Claude Code's built-in tools (its tools reference and hooks
 * reference), which Qoder CN CLI shares for the ones it has. MCP tools are `mcp__<server>__<tool>`.
 */
export const KNOWN_TOOLS: ReadonlySet<string> = new Set([
  "Agent",
  "AskUserQuestion",
  "Bash",
  "BashOutput",
  "Edit",
  "EnterPlanMode",
  "ExitPlanMode",
  "Glob",
  "Grep",
  "KillShell",
  "LS",
  "ListMcpResourcesTool",
  "LSP",
  "MultiEdit",
  "NotebookEdit",
  "NotebookRead",
  "Read",
  "ReadMcpResourceTool",
  "Skill",
  "SlashCommand",
  "Task",
  "TaskCreate",
  "TaskGet",
  "TaskList",
  "TaskOutput",
  "TaskStop",
  "TaskUpdate",
  "TodoRead",
  "TodoWrite",
  "ToolSearch",
  "WebFetch",
  "WebSearch",
  "Write",
]);

const BY_LOWER = new Map([...KNOWN_TOOLS].map((t) => [t.toLowerCase(), t]));

/** The known tool a name differs from only by case (`bash` -> `Bash`); undefined when none. */
export const toolByCase = (name: string): string | undefined => {
  const tool = BY_LOWER.get(name.toLowerCase());
  return tool !== name ? tool : undefined;
};
