import { z } from "zod";
import { EventNameSchema } from "./events.js";
import { LogDecisionSchema } from "./logRecord.js";

/** One side of a replay comparison. */
export const ReplaySideSchema = z.object({
  /** null after a `--match-only` replay, or when the event could not be replayed. */
  decision: LogDecisionSchema.nullable(),
  blocked: z.boolean(),
  reason: z.string().nullable(),
  hooks: z.array(z.string()),
});
export type ReplaySide = z.infer<typeof ReplaySideSchema>;

/** One re-judged event. */
export const ReplayResultSchema = z.object({
  /** The live event's seq. */
  seq: z.number().int(),
  /** Null only for a rejected payload that named no known event. */
  event: EventNameSchema.nullable(),
  sessionId: z.string().nullable(),
  matchValue: z.string().nullable(),
  before: ReplaySideSchema,
  after: ReplaySideSchema,
  /** The decision differs (`recorded` and `unfinished` compare as `none`). Always false with `--match-only`. */
  changed: z.boolean(),
  /** Why the event could not be re-judged (its project directory is gone...); null when it was. */
  skipped: z.string().nullable(),
  hookErrors: z.number().int(),
  timeouts: z.number().int(),
  /**
   * The payload's fields that the log keeps redacted (JSON paths, `payload` for a payload that is not JSON): hooks
   * re-judged the event with markers where the secrets were. Absent when nothing was redacted.
   */
  redacted: z.array(z.string()).optional(),
});
export type ReplayResult = z.infer<typeof ReplayResultSchema>;

/** The counts a replay ends with. */
export const ReplaySummarySchema = z.object({
  runId: z.string(),
  events: z.number().int(),
  changed: z.number().int(),
  newlyBlocked: z.number().int(),
  newlyAllowed: z.number().int(),
  skipped: z.number().int(),
  hookErrors: z.number().int(),
  timeouts: z.number().int(),
});
export type ReplaySummary = z.infer<typeof ReplaySummarySchema>;

/** A replay run as `qhooks replay --list` shows it. */
export const ReplayRunSchema = z.object({
  runId: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  matchOnly: z.boolean(),
  /** Shadow hooks were judged as enforced (`--enforce-shadow`); absent otherwise. */
  enforceShadow: z.literal(true).optional(),
  settings: z.array(z.string()).nullable(),
  selector: z.record(z.string(), z.unknown()),
  summary: ReplaySummarySchema.nullable(),
});
export type ReplayRun = z.infer<typeof ReplayRunSchema>;
