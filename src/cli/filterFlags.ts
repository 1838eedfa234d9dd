import { z } from "zod";
import { LogFilterSchema, type LogFilter } from "../schema/logFilter.js";
import { parseTimeArg } from "./timeArg.js";

/** The filter flags as commander gives them: the log's filter, with `--session` repeated and times as typed. */
const RawFilterSchema = LogFilterSchema.pick({ event: true, tool: true, decision: true, blocked: true, hook: true, grep: true }).extend({
  session: z.array(z.string()).optional(),
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
