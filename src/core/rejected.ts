import type { RejectedEvent } from "../payload/parsePayload.js";
import type { Arrival } from "./arrival.js";
import type { PipelineWarning } from "./warnings.js";

/** An event the pipeline refused to judge (invalid payload, recursion); it still reaches the log. */
export interface Rejected {
  readonly kind: "rejected";
  readonly arrival: Arrival;
  readonly rejection: RejectedEvent;
  /** Its place in the log, once recorded. */
  readonly seq: number | null;
  /** Problems met while recording it. */
  readonly warnings: readonly PipelineWarning[];
}

export const isRejected = (value: unknown): value is Rejected =>
  typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "rejected";
