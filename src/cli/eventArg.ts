import { QhooksError } from "../errors.js";
import { EVENT_NAMES } from "../schema/eventNames.js";
import type { EventName } from "../schema/events.js";
import { editDistance } from "../settings/editDistance.js";
import { oneLineText } from "../text/oneLine.js";
import { eventNamed, type HostEventNames } from "../hosts/hostEventNames.js";

export const isEventName = (raw: string): raw is EventName => (EVENT_NAMES as readonly string[]).includes(raw);

/**
 * `unknown event "PreTool"; did you mean PreToolUse?` for a wrong case, a typo or the start of exactly one event's
 * name, else the list of events.
 */
export function unknownEvent(raw: string): string {
  const lower = raw.toLowerCase();
  const starting = lower.length >= 3 ? EVENT_NAMES.filter((e) => e.toLowerCase().startsWith(lower)) : [];
  const close =
    EVENT_NAMES.find((e) => e.toLowerCase() === lower) ??
    EVENT_NAMES.find((e) => editDistance(e.toLowerCase(), lower) <= 2) ??
    (starting.length === 1 ? starting[0] : undefined);
  return `unknown event "${oneLineText(raw, 64)}"; ${close ? `did you mean ${close}?` : `one of ${EVENT_NAMES.join(", ")}`}`;
}

// Free of zod: `run` checks its event before it loads anything heavier.

/** An event named on the command line (`qhooks run PreToolUse`), by its qhooks name or its host's. */
export function eventArgument(raw: string, hostEvents?: HostEventNames): EventName {
  const event = eventNamed(raw, hostEvents);
  if (event === null) throw new QhooksError("usage", unknownEvent(raw));
  return event;
}
