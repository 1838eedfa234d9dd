import { parsePayload } from "../../payload/parsePayload.js";
import type { SettingsSnapshot } from "../../settings/loadSettings.js";
import type { Rejected } from "../../core/rejected.js";
import type { Arrival } from "../../core/arrival.js";
import type { Validated } from "../stages.js";

export interface ValidateOptions {
  readonly projectDir: string;
  readonly snapshot: () => SettingsSnapshot;
}

/**
 * Checks each arriving payload against its event's schema and pins the configuration it will be judged by. An
 * invalid payload becomes a Rejected value that skips the rest of the pipeline, but not the log. Made once for a
 * stream.
 */
export function validateStep(options: ValidateOptions): (arrival: Arrival) => Validated | Rejected {
  const { projectDir } = options;
  return (arrival) => {
    const parsed = parsePayload(arrival.input, { event: arrival.event, projectDir });
    if (!parsed.ok) return { kind: "rejected", arrival, rejection: parsed.value, seq: null, warnings: [] };
    return { arrival, valid: parsed.value, snapshot: options.snapshot() };
  };
}
