import { Option } from "commander";
import { FORMAT_HELP, flagsOf, type CommandSpec } from "../commandSpec.js";
import { addFilterOptions, HOST_FILTER_HELP, hostFlag } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const log: CommandSpec = {
  path: ["log"],
  description: "audit the log: events with their decisions and hooks, newest first",
  define: (c) =>
    addFilterOptions(
      c
        .option("-n, --limit <n>", "at most this many events, newest first (default 50), or all; a cut is said on stderr")
        .option("--replay <runId>", "the events of this replay run instead of live history")
        .addOption(new Option("--format <format>", FORMAT_HELP).choices(["table", "tsv", "json", "jsonl"]))
        .option("--json", "same as --format json: a JSON array of log records")
        .option("--jsonl", "same as --format jsonl: one JSON log record per line")
        .option("-f, --follow", "after the newest events (oldest first), print each new one as it is judged, until interrupted")
        .option("--interval <pause>", "how often --follow reads the log: 500ms, 2s...", "500ms"),
    ).addHelpText("after", HOST_FILTER_HELP),
  action: async ({ opts, command }) => {
    const { logCommand, LogFlagsSchema } = await import("../commands/log.js");
    const { limit, replay, json, jsonl, format, utc, follow, interval, ...filter } = opts;
    const flags = { filter: { ...filter, ...hostFlag(command), utc }, limit, replay, utc, format: { format, json, jsonl } };
    if (follow) {
      const { followLog, FollowFlagsSchema } = await import("../commands/logFollow.js");
      return followLog(flagsOf(FollowFlagsSchema, { ...flags, interval }), cliContext(command));
    }
    return logCommand(flagsOf(LogFlagsSchema, flags), cliContext(command));
  },
};
