import { DIALECTS, type Dialect } from "../schema/dialect.js";
import type { HostEventNames } from "./hostEventNames.js";
import { hostDialect } from "./hosts.js";
import { COPILOT_CLAUDE_TOOLS } from "./copilotNames.js";

/**
 * The host that really sent a payload to an entry pinned to another (`--dialect claude`), or null when nothing says
 * so. Cursor runs the hooks of Claude Code's files itself (user, project, local) with its own payload, so an entry
 * `qhooks install claude` wrote is also called by Cursor. Its payloads carry `cursor_version`, and `conversation_id`
 * beside `workspace_roots` (docs/hosts.md, "A caller of another host"); Claude Code sends neither. Copilot CLI runs
 * the hooks of the repository's `.claude/settings.json` and `.claude/settings.local.json`: its payloads carry a
 * `timestamp` (ISO 8601 text in the VS Code-compatible form it sends to PascalCase events, epoch milliseconds beside
 * `sessionId` in its own camelCase form), which Claude Code's do not.
 */
export function callerHostOf(input: string, pinned: Dialect): Dialect | null {
  let fields: unknown;
  try {
    fields = JSON.parse(input);
  } catch {
    return null;
  }
  return callerHostOfFields(fields, pinned);
}

/** The same for a payload already parsed (the log's listings read each stored payload once). */
export function callerHostOfFields(fields: unknown, pinned: Dialect): Dialect | null {
  if (pinned === "cursor") return null;
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return null;
  const f = fields as Record<string, unknown>;
  if (typeof f.cursor_version === "string") return "cursor";
  if (typeof f.conversation_id === "string" && Array.isArray(f.workspace_roots)) return "cursor";
  // Copilot CLI reads Claude Code's files only (no other host's), so only an entry pinned to Claude Code is asked.
  if (pinned === "claude" && (typeof f.timestamp === "string" || (typeof f.timestamp === "number" && typeof f.sessionId === "string"))) return "copilot";
  return null;
}

/**
 * The caller of an event the log says was judged by `judgedBy`, from its stored payload; null when the judging host
 * called (or the event was not judged, or its host is not one qhooks knows). Worked out when the log is read, as
 * `tried` is: the payload is kept as it came, so events logged before this existed have their caller too.
 */
export function loggedCallerOf(payload: unknown, judgedBy: string | null): Dialect | null {
  if (judgedBy === null || !(DIALECTS as readonly string[]).includes(judgedBy)) return null;
  return callerHostOfFields(payload, judgedBy as Dialect);
}

/**
 * A caller's tool names that mean one of the pinned host's tools, so that its hooks' matchers see the call: Cursor's
 * shell tool (`Shell`) is Claude Code's `Bash`, and a Claude Code guard written for `Bash` must judge Cursor's
 * commands too (docs/decisions.md, "Cursor's Shell through a Claude Code entry"). Tools with no counterpart keep
 * their names.
 */
const CALLER_TOOLS: Readonly<Partial<Record<Dialect, Partial<Record<Dialect, Readonly<Record<string, string>>>>>>> = {
  cursor: { claude: { Shell: "Bash" } },
  // Copilot CLI's own names (its camelCase payloads) as Claude Code's, from its hooks reference's table (the first
  // Claude Code name of each: `task` is `Agent`); its VS Code-compatible payloads name Claude Code's tools already.
  copilot: {
    claude: Object.fromEntries(COPILOT_CLAUDE_TOOLS.filter(([runtime], i) => COPILOT_CLAUDE_TOOLS.findIndex(([r]) => r === runtime) === i)),
  },
};

/**
 * Callers answered in their own format rather than the pinned host's: Copilot CLI reads the same answer fields
 * (`permissionDecision`, `decision: "block"`...) from every hook it runs, Claude Code's files' included, and drops an
 * exit 2 outside `preToolUse` and `permissionRequest`, so Claude Code's plain block of a stop would let it stop.
 */
const ANSWERS_IN_OWN_FORMAT: ReadonlySet<Dialect> = new Set(["copilot"]);

/** The host whose answer format a call is answered in: the caller's where it reads only its own, else the pinned one's. */
export const answeringHost = (pinned: Dialect, caller: Dialect | null): Dialect => (caller !== null && ANSWERS_IN_OWN_FORMAT.has(caller) ? caller : pinned);

/** The renames of tools from `caller`'s names to `pinned`'s (empty when none). */
export const callerToolNames = (caller: Dialect, pinned: Dialect): Readonly<Record<string, string>> => CALLER_TOOLS[caller]?.[pinned] ?? {};

/** A payload read in the caller's words, with its tool named as the pinned host names it. */
export function asPinnedTools(caller: Dialect, pinned: Dialect, fields: Record<string, unknown>): Record<string, unknown> {
  const names = callerToolNames(caller, pinned);
  const tool = fields.tool_name;
  if (typeof tool !== "string" || !Object.hasOwn(names, tool)) return fields;
  return { ...fields, tool_name: names[tool] };
}

/** `Shell as Bash`: the renames, for the line that names the caller; empty when there are none. */
export const callerToolsText = (caller: Dialect, pinned: Dialect): string =>
  Object.entries(callerToolNames(caller, pinned))
    .map(([from, to]) => `${from} as ${to}`)
    .join(", ");

/** How payloads sent to an entry pinned to `pinned` are read: in the sender's words, its tools as the pinned host's. */
export interface PayloadReading {
  readonly hostEvents: HostEventNames | undefined;
  readonly readPayload: ((fields: Readonly<Record<string, unknown>>) => Record<string, unknown>) | undefined;
}

/**
 * The reading of payloads for an entry pinned to `pinned` (none: qhooks' own names) and sent by `sender` (the pinned
 * host itself when absent): the sender's event names and payload shape, then, for a caller of another host, its
 * tools renamed to the pinned host's, so that the pinned host's matchers (`Bash`) see the caller's calls (`Shell`).
 */
export function payloadReading(pinned: Dialect | undefined, sender: Dialect | undefined = pinned): PayloadReading {
  const host = sender === undefined ? undefined : hostDialect(sender);
  const read = host?.readPayload;
  if (sender === undefined || pinned === undefined || sender === pinned) return { hostEvents: host?.eventNames, readPayload: read };
  return { hostEvents: host?.eventNames, readPayload: (fields) => asPinnedTools(sender, pinned, read ? read(fields) : { ...fields }) };
}
