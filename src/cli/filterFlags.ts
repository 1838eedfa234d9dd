import type { Command } from "commander";
import { z } from "zod";
import { EventNameSchema } from "../schema/events.js";
import { LogDecisionSchema } from "../schema/logRecord.js";
import type { LogFilter } from "../store/eventLog.js";
import { parseTimeArg } from "./timeArg.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The `qhooks log` filters, shared by `log` and `replay` so that both select events the same way. */
export function addFilterOptions(command: Command): Command {
  return command
    .option("--event <event>", "only this event (PreToolUse, Stop, ...)")
    .option("--session <id>", "only this session (repeatable)", collect)
    .option("--tool <name>", "only events whose match value (tool name, agent type, source...) is exactly this")
    .option("--decision <decision>", "only this decision: allow, deny, ask, block, none, recorded, rejected, unfinished")
    .option("--blocked", "only blocked events")
    .option("--hook <text>", "only events where a hook whose name or command contains this ran")
    .option("--grep <text>", "only events whose payload or reason contains this (case-sensitive)")
    .option("--since <time>", "from this time: ISO 8601, or a span back from now (30m, 2h, 7d)")
    .option("--until <time>", "before this time: ISO 8601, or a span back from now");
}

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
