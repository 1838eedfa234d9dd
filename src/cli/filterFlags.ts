import { z } from "zod";
import { EventNameSchema } from "../schema/events.js";
import { LogDecisionSchema } from "../schema/logRecord.js";
import type { LogFilter } from "../store/eventLog.js";
import { parseTimeArg } from "./timeArg.js";

const RawFilterSchema = z.object({
  event: EventNameSchema.optional(),
  session: z.array(z.string()).optional(),
  tool: z.string().optional(),
  decision: LogDecisionSchema.optional(),
  blocked: z.boolean().optional(),
  hook: z.string().optional(),
  grep: z.string().optional(),
  since: z.string().optional(),
  until: z.string().optional(),
});

export const FilterFlagsSchema = RawFilterSchema.transform((raw): LogFilter => ({
  event: raw.event,
  sessions: raw.session,
  tool: raw.tool,
  decision: raw.decision,
  blocked: raw.blocked,
  hook: raw.hook,
  grep: raw.grep,
  since: raw.since === undefined ? undefined : parseTimeArg("--since", raw.since),
  until: raw.until === undefined ? undefined : parseTimeArg("--until", raw.until),
}));

/** True when at least one filter selects events (replay refuses to run every hook of the whole log). */
export const hasSelector = (filter: LogFilter): boolean =>
  Object.entries(filter).some(([key, value]) => key !== "replayRun" && value !== undefined && !(Array.isArray(value) && value.length === 0));

/** A flag that takes a whole number of at least `min` (`--limit`, `--concurrency`), with one clear message. */
export const wholeNumberFlag = (flag: string, min: number) =>
  z.coerce
    .number({ error: `${flag}: expected a whole number` })
    .int({ error: `${flag}: expected a whole number` })
    .min(min, { error: `${flag}: expected a whole number of at least ${min}` });
