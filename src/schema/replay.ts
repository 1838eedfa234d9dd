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

/** What can differ between the logged outcome and the replayed one. */
export const ReplayChangeSchema = z.enum(["decision", "blocked", "continue", "updatedInput"]);
export type ReplayChange = z.infer<typeof ReplayChangeSchema>;

/** A hook that failed in a replay. */
export const ReplayHookFailureSchema = z.object({
  name: z.string(),
  outcome: z.enum(["error", "invalid-output", "timeout"]),
  /** The first line of why. */
  error: z.string(),
});
export type ReplayHookFailure = z.infer<typeof ReplayHookFailureSchema>;

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
  /**
   * The outcome differs: its decision (`recorded` and `unfinished` compare as `none`), whether it blocks, whether the
   * agent goes on (`continue`) or the tool input it gets (`updatedInput`). Always false with `--match-only`.
   */
  changed: z.boolean(),
  /** What differs, when `changed`; absent otherwise. */
  changes: z.array(ReplayChangeSchema).optional(),
  /**
   * Why the event was not re-judged (its project directory is gone, `--skip-event` named its event...); null when
   * it was.
   */
  skipped: z.string().nullable(),
  /** Set when `--skip-event` named the event: its hooks did not run. Absent otherwise. */
  skipEvent: z.literal(true).optional(),
  /** Hooks that matched and did not run because `qhooks.replay.skip` names them. Absent when none. */
  hooksSkipped: z.array(z.string()).optional(),
  /** Hooks that matched and gave their `qhooks.replay.stub` answer instead of running. Absent when none. */
  hooksStubbed: z.array(z.string()).optional(),
  hookErrors: z.number().int(),
  timeouts: z.number().int(),
  /** The hooks that failed (an error, invalid output, a timeout), with the first line of why. Absent when none. */
  hookFailures: z.array(ReplayHookFailureSchema).optional(),
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
  /** Events `--skip-event` named: not judged, not counted in `skipped` (absent from runs logged before it existed). */
  skippedEvents: z.number().int().optional(),
  /** Hook runs left out by `qhooks.replay.skip`, and answered by a `qhooks.replay.stub`, over all events (idem). */
  hooksSkipped: z.number().int().optional(),
  hooksStubbed: z.number().int().optional(),
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
  /** The events `--skip-event` named; absent when none. */
  skipEvents: z.array(EventNameSchema).optional(),
  selector: z.record(z.string(), z.unknown()),
  summary: ReplaySummarySchema.nullable(),
});
export type ReplayRun = z.infer<typeof ReplayRunSchema>;
