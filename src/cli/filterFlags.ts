import { resolve } from "node:path";
import { z } from "zod";
import { LogFilterSchema, type LogFilter } from "../schema/logFilter.js";
import type { EventName } from "../schema/events.js";
import { isEventName, unknownEvent } from "./eventArg.js";
import { parseTimeArg } from "./timeArg.js";

/** An event given with a flag (`--event`): checked like `qhooks run <event>`, with the same did-you-mean. */
export const EventFlagSchema = z.custom<EventName>((v) => typeof v === "string" && isEventName(v), {
  error: (issue) => (typeof issue.input === "string" ? unknownEvent(issue.input) : "expected an event name"),
});

/**
 * The filter flags as commander gives them: the log's filter, with `--session` repeated, times as typed and read
 * in the local zone unless `--utc`, and `--event` checked with a did-you-mean.
 */
const RawFilterSchema = LogFilterSchema.pick({
  tool: true,
  decision: true,
  blocked: true,
  hook: true,
  grep: true,
  shadow: true,
  machine: true,
  user: true,
  writer: true,
  host: true,
}).extend({
  event: EventFlagSchema.optional(),
  session: z.array(z.string()).optional(),
  since: z.string().optional(),
  until: z.string().optional(),
  utc: z.boolean().default(false),
  errors: z.boolean().optional(),
  project: z.string().min(1, { error: "--project: expected a directory" }).optional(),
});

export const FilterFlagsSchema = RawFilterSchema.transform(
  (raw): LogFilter => ({
    event: raw.event,
    sessions: raw.session,
    tool: raw.tool,
    decision: raw.decision,
    blocked: raw.blocked,
    hook: raw.hook,
    grep: raw.grep,
    ...(raw.errors ? { errors: true } : {}),
    ...(raw.project !== undefined ? { projectDir: resolve(raw.project) } : {}),
    ...(raw.shadow ? { shadow: true } : {}),
    ...(raw.machine !== undefined ? { machine: raw.machine } : {}),
    ...(raw.user !== undefined ? { user: raw.user } : {}),
    ...(raw.writer !== undefined ? { writer: raw.writer } : {}),
    ...(raw.host !== undefined ? { host: raw.host } : {}),
    ...timeWindow(raw),
  }),
);

/** `--since` and `--until` as dates; a time without a zone is local, or UTC with `--utc`. */
export function timeWindow(raw: { since?: string | undefined; until?: string | undefined; utc?: boolean }): Pick<LogFilter, "since" | "until"> {
  const utc = raw.utc ?? false;
  return {
    since: raw.since === undefined ? undefined : parseTimeArg("--since", raw.since, { utc }),
    until: raw.until === undefined ? undefined : parseTimeArg("--until", raw.until, { utc }),
  };
}

/** True when at least one filter selects events (replay refuses to run every hook of the whole log). */
export const hasSelector = (filter: LogFilter): boolean =>
  Object.entries(filter).some(([key, value]) => key !== "replayRun" && value !== undefined && !(Array.isArray(value) && value.length === 0));

/** A flag that takes a whole number of at least `min` (`--concurrency`); the flag's name is added by the caller. */
export const wholeNumberFlag = (min: number) =>
  z.coerce
    .number({ error: "expected a whole number" })
    .int({ error: "expected a whole number" })
    .min(min, { error: `expected a whole number of at least ${min}` });

/** `--limit N` / `-n N`, or `--limit all`: how many rows at most; null for no limit. */
export const limitFlag = (defaultLimit: number) =>
  z
    .union([z.string(), z.number()])
    .transform((value, ctx): number | null => {
      if (value === "all") return null;
      const n = typeof value === "number" ? value : /^\d+$/.test(value.trim()) ? Number(value) : NaN;
      if (Number.isSafeInteger(n) && n >= 1) return n;
      ctx.issues.push({ code: "custom", input: value, message: "expected a whole number of at least 1, or all" });
      return z.NEVER;
    })
    .default(defaultLimit);
