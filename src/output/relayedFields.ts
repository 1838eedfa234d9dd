import type { EventName } from "../schema/events.js";
import type { HookResult } from "../schema/outcome.js";

/** `hookSpecificOutput` keys the outcome already carries in its own terms; every other key is relayed as written. */
const INTERPRETED = new Set(["hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext", "decision"]);

/** What `--format hook` passes on from the hooks' own JSON, beyond what the outcome says. */
export interface RelayedFields {
  /** Event-specific keys qhooks does not interpret (`sessionTitle`, `displayContent`, `retry`, `action`...). */
  readonly specific: Readonly<Record<string, unknown>>;
  /** Top-level keys the agent acts on that qhooks does not interpret (`terminalSequence`). */
  readonly topLevel: Readonly<Record<string, unknown>>;
  /** PermissionRequest: `decision.updatedPermissions` of the hooks that allowed. */
  readonly updatedPermissions: unknown;
}

const TOP_LEVEL = ["terminalSequence"];

/**
 * Collects, from the stdout of the hooks whose JSON was read (success or block, exit 0), the output fields that
 * the agent honours and the outcome has no field for. A later hook in selection order wins for each key, as for
 * `updatedInput`. The outcome keeps every hook's stdout, so nothing needs to be kept twice.
 */
export function relayedFields(event: EventName, hooks: readonly HookResult[], allowed: boolean): RelayedFields {
  const specific: Record<string, unknown> = {};
  const topLevel: Record<string, unknown> = {};
  let updatedPermissions: unknown;
  for (const hook of hooks) {
    if ((hook.outcome !== "success" && hook.outcome !== "block") || hook.exitCode !== 0) continue;
    const json = parseObject(hook.stdout);
    if (json === null) continue;
    for (const key of TOP_LEVEL) if (json[key] !== undefined) topLevel[key] = json[key];
    const own = json.hookSpecificOutput;
    if (!isObject(own) || own.hookEventName !== event) continue;
    for (const [key, value] of Object.entries(own)) if (!INTERPRETED.has(key)) specific[key] = value;
    const decision = own.decision;
    if (allowed && hook.decision === "allow" && isObject(decision) && decision.updatedPermissions !== undefined) {
      updatedPermissions = decision.updatedPermissions;
    }
  }
  return { specific, topLevel, updatedPermissions };
}

/** The last non-empty line of the last hook that printed plain text: a WorktreeCreate hook's worktree path. */
export function lastPlainLine(hooks: readonly HookResult[]): string | null {
  let line: string | null = null;
  for (const hook of hooks) {
    if (hook.outcome !== "success" || hook.exitCode !== 0) continue;
    const text = hook.stdout.trim();
    if (text === "" || text.startsWith("{")) continue;
    line = text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .at(-1)!
      .trim();
  }
  return line;
}

function parseObject(stdout: string): Record<string, unknown> | null {
  const text = stdout.trim();
  if (!text.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
