import type { Dialect } from "../schema/dialect.js";

/**
 * The host that really sent a payload to an entry pinned to another (`--dialect claude`), or null when nothing says
 * so. Cursor runs the hooks of Claude Code's files itself (user, project, local) with its own payload, so an entry
 * `qhooks install claude` wrote is also called by Cursor. Its payloads carry `cursor_version`, and `conversation_id`
 * beside `workspace_roots` (docs/hosts.md, "A caller of another host"); Claude Code sends neither.
 */
export function callerHostOf(input: string, pinned: Dialect): Dialect | null {
  if (pinned === "cursor") return null;
  let fields: unknown;
  try {
    fields = JSON.parse(input);
  } catch {
    return null;
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return null;
  const f = fields as Record<string, unknown>;
  if (typeof f.cursor_version === "string") return "cursor";
  if (typeof f.conversation_id === "string" && Array.isArray(f.workspace_roots)) return "cursor";
  return null;
}
