import { QhooksError } from "../../errors.js";
import type { HostDialect } from "../../hosts/hostDialect.js";
import type { EventName } from "../../schema/events.js";
import { COPILOT_MATCHER_EVENTS } from "../../hosts/copilotNames.js";

/** What `hooks add` writes into a one-hook-per-entry host's file: the entry, under the host's event name. */
export interface FlatHookEntry {
  readonly hostEvent: string;
  readonly entry: Record<string, unknown>;
  readonly newFileKeys: Record<string, unknown>;
  /** Whether an entry already there runs the same command (then nothing is added). */
  readonly same: (existing: unknown) => boolean;
}

/**
 * The entry for a host whose files hold one hook per entry (Cursor, Copilot CLI: the hosts with `writeHookEntry`),
 * or null for a host of matcher groups. What the host's entries cannot say is refused in one line: a matcher where
 * the host has none (Copilot CLI), `--name` and `--shadow` (qhooks' keys, not the host's).
 */
export function flatHookEntry(
  host: HostDialect,
  event: EventName,
  flags: { readonly command: string; readonly matcher?: string; readonly timeout?: number; readonly name?: string; readonly shadow?: boolean },
): FlatHookEntry | null {
  if (host.writeHookEntry === undefined) return null;
  const hostEvent = host.eventNames.toHost.get(event);
  if (hostEvent === undefined || !host.events.includes(event)) throw new QhooksError("usage", `${host.name} has no ${event} event: nothing was added`);
  if (flags.name !== undefined || flags.shadow === true)
    throw new QhooksError("usage", `${host.name}'s hook entries have no name or mode: drop --name and --shadow (nothing was added)`);
  const entry = host.writeHookEntry({ command: flags.command, timeoutSeconds: flags.timeout });
  const matcher = flags.matcher?.trim();
  if (matcher !== undefined && matcher !== "" && matcher !== "*") {
    // Cursor reads a `matcher` on its tool events' entries, Copilot CLI on the events of COPILOT_MATCHER_EVENTS (docs/hosts.md).
    const cursorReads = host.id === "cursor" && (event === "PreToolUse" || event === "PostToolUse" || event === "PostToolUseFailure");
    const copilotReads = host.id === "copilot" && COPILOT_MATCHER_EVENTS.has(hostEvent);
    if (!cursorReads && !copilotReads)
      throw new QhooksError("usage", `${host.name} has no matchers on ${hostEvent}: its hooks run for every call; drop --matcher (nothing was added)`);
    entry.matcher = matcher;
  }
  const commandOf = (e: Record<string, unknown>) => e.command ?? e.bash;
  const mine = commandOf(entry);
  return {
    hostEvent,
    entry,
    newFileKeys: { ...host.newFileKeys },
    same: (existing) =>
      typeof existing === "object" && existing !== null && !Array.isArray(existing) && commandOf(existing as Record<string, unknown>) === mine,
  };
}
