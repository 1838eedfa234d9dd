import { Option, type Command } from "commander";
import { DIALECTS } from "../schema/dialect.js";

/** Commander option parser for repeatable flags. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

export const SINCE_HELP = 'from this time: 30m, 2h, 7d, "2 hours ago", today, yesterday, or an ISO date or time (local, unless it has a zone)';

const MACHINE_HELP = "only events written on this machine (its host name)";
const USER_HELP = "only events written by this OS user";
const WRITER_HELP = "only events of this writer (a log's id, or host:<name> for a machine writing directly)";

/**
 * The host a read-side command (log, sessions, stats, report) selects by: `--host` (or its other name `--dialect`),
 * global options that name the agent. On a judging command they say whose settings judge; here, whose settings
 * judged the events listed. Only a flag selects: $QHOOKS_DIALECT, or a host found on disk, never hides events.
 */
export function hostFlag(command: Command): { host?: string } {
  const globals = command.optsWithGlobals<{ host?: string; dialect?: string }>();
  const host = globals.host ?? globals.dialect;
  return host === undefined ? {} : { host };
}

/** What `--host` means on a read-side command, after its options in its help. */
export const HOST_FILTER_HELP = `
--host <name> (or --dialect): only events judged by that host's settings (${DIALECTS.join(", ")});
recorded and rejected events were judged by none. On run, replay or explain the same flag says whose settings judge.`;

/** The `qhooks log` filters, shared by `log` and `replay` so that both select events the same way. */
export function addFilterOptions(command: Command): Command {
  return command
    .option("--event <event>", "only this event (PreToolUse, Stop, ...)")
    .option("--session <id>", "only this session (repeatable); a unique prefix of its id will do, as tables show it", collect)
    .option("--tool <name>", "only events whose match value (tool name, agent type, source...) is exactly this")
    .option("--decision <decision>", "only this decision: allow, deny, ask, block, none, recorded, rejected, unfinished")
    .option("--blocked", "only blocked events")
    .option("--hook <text>", "only events where a hook whose name or command contains this ran")
    .option("--grep <text>", "only events whose payload or reason contains this (case-sensitive)")
    .option("--errors", "only events where a hook failed (an error, a timeout, output that could not be read)")
    .option("--project <dir>", "only events of this project directory")
    .option("--shadow", 'only events where a shadow hook ("mode": "shadow") would have changed the outcome')
    .option("--machine <name>", MACHINE_HELP)
    .option("--user <name>", USER_HELP)
    .option("--writer <id>", WRITER_HELP)
    .option("--since <time>", SINCE_HELP)
    .option("--until <time>", "before this time (same forms as --since)")
    .option("--utc", "times in UTC: shown, and read from --since/--until without a zone");
}

/** The time window, origin and format options that `sessions` and `stats` share. */
export function addWindowOptions(command: Command, formatHelp: string, formats: readonly string[]): Command {
  return command
    .option("--machine <name>", MACHINE_HELP)
    .option("--user <name>", USER_HELP)
    .option("--writer <id>", WRITER_HELP)
    .option("--since <time>", SINCE_HELP)
    .option("--until <time>", "before this time (same forms as --since)")
    .option("--utc", "times in UTC: shown, and read from --since/--until without a zone")
    .addOption(new Option("--format <format>", formatHelp).choices(formats))
    .option("--json", "same as --format json");
}
