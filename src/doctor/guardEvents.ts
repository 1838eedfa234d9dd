import { EVENT_TRAITS, type EventName } from "../schema/events.js";

/** A guard event: a hook there can stop what happens (deny a tool, block a prompt, keep the agent working). */
export const isGuardEvent = (event: EventName): boolean => EVENT_TRAITS[event].blockDecision !== null;
