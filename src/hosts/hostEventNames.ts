import { EVENT_NAMES } from "../schema/eventNames.js";
import type { EventName } from "../schema/events.js";

/**
 * An event named on a command line (`qhooks run PreToolUse`, `qhooks run BeforeTool --dialect gemini`): by its qhooks
 * name, else by the host's own name for it; null when neither.
 */
export function eventNamed(raw: string, hostEvents?: HostEventNames): EventName | null {
  if ((EVENT_NAMES as readonly string[]).includes(raw)) return raw as EventName;
  return hostEvents === undefined ? null : qhooksEventOf(hostEvents, raw);
}

/**
 * A host's names for its events, both ways: its settings files and payloads use them (Gemini CLI's `BeforeTool` is
 * qhooks' `PreToolUse`). Qoder CN CLI and Claude Code use qhooks' own names.
 */
export interface HostEventNames {
  /** The host's name to qhooks' event, in the host's own order. */
  readonly toQhooks: ReadonlyMap<string, EventName>;
  /** qhooks' event to the host's name, for every event the host has a name for. */
  readonly toHost: ReadonlyMap<EventName, string>;
  /** Events of the host with no qhooks equivalent: hooks written under them get a warning and are skipped. */
  readonly unmapped: ReadonlySet<string>;
  /**
   * Host names that stand for one tool of a qhooks event (Cursor's `beforeShellExecution` is PreToolUse for its
   * `Shell` tool): read as that event, their hooks matched against that tool; never the host's name for the event.
   */
  readonly narrowed: ReadonlyMap<string, { readonly event: EventName; readonly matcher: string }>;
  /**
   * Other names the host reads for an event (Copilot CLI's PascalCase `PreToolUse` beside its `preToolUse`): read as
   * that event, never written (install and `hooks add` write the host's own name).
   */
  readonly aliases: ReadonlySet<string>;
}

/**
 * The names of a host from its pairs (host name, qhooks event). Each side appears once: a host name for two events,
 * or two names for one event, is a mistake in the host's file and throws when it is loaded.
 */
export function hostEventNames(
  pairs: ReadonlyArray<readonly [string, EventName]>,
  unmapped: readonly string[] = [],
  narrow: ReadonlyArray<readonly [string, EventName, string]> = [],
  aliases: ReadonlyArray<readonly [string, EventName]> = [],
): HostEventNames {
  const toQhooks = new Map<string, EventName>();
  const toHost = new Map<EventName, string>();
  for (const [name, event] of pairs) {
    if (toQhooks.has(name) || toHost.has(event) || unmapped.includes(name)) throw new Error(`host event ${name} (${event}) is named twice`);
    toQhooks.set(name, event);
    toHost.set(event, name);
  }
  const narrowed = new Map<string, { event: EventName; matcher: string }>();
  for (const [name, event, matcher] of narrow) {
    if (toQhooks.has(name) || unmapped.includes(name)) throw new Error(`host event ${name} (${event}) is named twice`);
    toQhooks.set(name, event);
    narrowed.set(name, { event, matcher });
  }
  for (const [name, event] of aliases) {
    if (toQhooks.has(name) || unmapped.includes(name)) throw new Error(`host event ${name} (${event}) is named twice`);
    toQhooks.set(name, event);
  }
  return { toQhooks, toHost, unmapped: new Set(unmapped), narrowed, aliases: new Set(aliases.map(([name]) => name)) };
}

/** Every event under its qhooks name: the hosts whose files use qhooks' names (Qoder CN CLI, Claude Code). */
export const QHOOKS_EVENT_NAMES: HostEventNames = hostEventNames(EVENT_NAMES.map((e) => [e, e] as const));

/** The qhooks event a host's name stands for; null for a name the host does not have, or one qhooks has no event for. */
export const qhooksEventOf = (names: HostEventNames, hostName: string): EventName | null => names.toQhooks.get(hostName) ?? null;

/** The host's name for a qhooks event; null when the host has no such event. */
export const hostEventOf = (names: HostEventNames, event: EventName): string | null => names.toHost.get(event) ?? null;
