import { parsePayload } from "../../payload/parsePayload.js";
import type { Dialect } from "../../hosts/hostDialect.js";
import { payloadReading } from "../../hosts/callerHost.js";
import type { SettingsSnapshot } from "../../settings/loadSettings.js";
import type { Rejected } from "../../core/rejected.js";
import type { Arrival } from "../../core/arrival.js";
import type { Validated } from "../stages.js";

export interface ValidateOptions {
  readonly projectDir: string;
  readonly snapshot: () => SettingsSnapshot;
  /** The host whose payloads arrive: its event names are read as its qhooks events (qhooks' own names when absent). */
  readonly dialect?: Dialect | undefined;
  /** The host that really sent the payloads when not `dialect` (Cursor calling an entry pinned to Claude Code). */
  readonly payloadDialect?: Dialect | undefined;
}

/**
 * Checks each arriving payload against its event's schema and pins the configuration it will be judged by. An
 * invalid payload becomes a Rejected value that skips the rest of the pipeline, but not the log. Made once for a
 * stream.
 */
export function validateStep(options: ValidateOptions): (arrival: Arrival) => Validated | Rejected {
  const { projectDir } = options;
  // A caller of another host's entry (Cursor calling Claude Code's): read in its words, its tools named as the
  // judging host names them.
  const { hostEvents, readPayload } = payloadReading(options.dialect, options.payloadDialect ?? options.dialect);
  return (arrival) => {
    const parsed = parsePayload(arrival.input, { event: arrival.event, projectDir, hostEvents, readPayload });
    if (!parsed.ok) return { kind: "rejected", arrival, rejection: parsed.value, seq: null, warnings: [] };
    return { arrival, valid: parsed.value, snapshot: options.snapshot() };
  };
}
