import { Option } from "commander";
import { FORMAT_HELP, flagsOf, type CommandSpec } from "../commandSpec.js";
import { addFilterOptions } from "../filterOptions.js";
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
        .option("--jsonl", "same as --format jsonl: one JSON log record per line"),
    ),
  action: async ({ opts, command }) => {
    const { logCommand, LogFlagsSchema } = await import("../commands/log.js");
    const { limit, replay, json, jsonl, format, utc, ...filter } = opts;
    return logCommand(flagsOf(LogFlagsSchema, { filter: { ...filter, utc }, limit, replay, utc, format: { format, json, jsonl } }), cliContext(command));
  },
};
