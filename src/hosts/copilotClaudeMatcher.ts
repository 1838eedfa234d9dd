import { COPILOT_CLAUDE_TOOLS } from "./copilotNames.js";

/** A matcher that is a name or a `|` list of names, as Claude Code reads one. */
const NAMES = /^[A-Za-z0-9_|]+$/;

/**
 * A `matcher` of a PascalCase `PreToolUse` or `PermissionRequest` entry (Claude Code's files, VS Code's format) as the
 * matcher qhooks tests against Copilot CLI's own tool names (`bash`, `view`...), so that it fires where Copilot CLI
 * fires it: empty, `*` or `**` is every tool; a name or a `|` list fires for a tool of that name or of that Claude
 * Code name (`Bash` is `bash` and `powershell`); another value is a regex on the Claude Code name (the tool's own for
 * a tool without one): it becomes the tools whose Claude Code name it matches, or any name it matches itself. That
 * last part can match a tool Copilot CLI would not (`b.*` matches `bash`, whose Claude Code name is `Bash`): a guard
 * may run more often under qhooks, never less. Undefined: no matcher (every tool).
 */
export function copilotClaudeMatcher(matcher: unknown): string | undefined {
  if (typeof matcher !== "string") return undefined;
  const m = matcher.trim();
  if (m === "" || m === "*" || m === "**") return undefined;
  if (NAMES.test(m)) {
    const tokens = m.split("|").filter((t) => t !== "");
    return unique(tokens.flatMap((t) => [...runtimeNamesOf((claude) => claude === t), t])).join("|");
  }
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${m})$`);
  } catch {
    // Left for qhooks' matcher compiler to name as invalid.
    return m;
  }
  const named = runtimeNamesOf((claude) => regex.test(claude));
  return `^(?:${[...named, `(?:${m})`].join("|")})$`;
}

const runtimeNamesOf = (pick: (claude: string) => boolean): string[] =>
  unique(COPILOT_CLAUDE_TOOLS.filter(([, claude]) => pick(claude)).map(([runtime]) => runtime));

const unique = (names: readonly string[]): string[] => [...new Set(names)];
