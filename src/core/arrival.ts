import type { EventName } from "../schema/events.js";

/** An event as it enters: the agent's payload, not yet trusted. */
export interface Arrival {
  /** JSON text (CLI, replay) or an object (library). */
  readonly input: string | object;
  /** The event named outside the payload (the CLI's `<event>` argument). */
  readonly event?: EventName | undefined;
  /** Wall-clock time of arrival, for the log. */
  readonly receivedAt: Date;
  /** performance.now() at arrival, for durations. */
  readonly startedAt: number;
}
