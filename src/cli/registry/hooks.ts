import { Option } from "commander";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { collect, SINCE_HELP } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const hooks: CommandSpec = {
  path: ["hooks"],
  description: "show the effective merged hooks, with their level, file and any warnings; hooks add adds one",
  define: (c) =>
    c
      .option("--event <event>", "only this event")
      .option("--settings <file>", "show these settings files instead of the discovered ones (repeatable)", collect)
      .option("--plugin <dir>", "also show the hooks of this plugin folder (repeatable)", collect)
      .addOption(
        new Option("--format <format>", "table: the report (the default, piped or not); tsv: one row per hook, warnings on stderr; json").choices([
          "table",
          "tsv",
          "json",
        ]),
      )
      .option("--json", "same as --format json")
      .option("--strict", "exit 1 when any settings file has a warning (for CI)")
      .option("--usage", "the usage ledger: each hook loaded or not, its runs, blocks, errors, timeouts, p50/p95/max time, last run, and whether it ever fired")
      .option("--since <time>", `with --usage: ${SINCE_HELP}`)
      .option("--until <time>", "with --usage: before this time (same forms as --since)")
      .option("--utc", "with --usage: times in UTC")
      .addHelpText(
        "after",
        `\nEvery dialect first reads ~/.qhooks/hooks.json, your hooks shared across hosts (user level, qhooks' event names).\n\nWith --usage:\n${USAGE_COLUMNS}`,
      ),
  action: async ({ opts, command }) => {
    const { hooksCommand, HooksFlagsSchema } = await import("../commands/hooks.js");
    const flags = flagsOf(HooksFlagsSchema, opts);
    if (!flags.usage) return hooksCommand(flags, cliContext(command));
    const { hooksUsageCommand } = await import("../commands/hooksUsage.js");
    return hooksUsageCommand({ ...flags, format: flags.format ?? (flags.json ? "json" : "table") }, cliContext(command));
  },
};

/** The usage ledger's columns, as `stats --hooks` counts them too (src/display/hookRunColumns.ts). */
const USAGE_COLUMNS = `  FIRED       the live events of the hook's event in the window that its matcher matches, out of all of them
              (events without a matcher, such as Stop, fire every hook); 0/N: never fired, listed below the table
  RUNS        its runs (counted by hook name); BLOCKS: runs that blocked (exit 2 or a blocking decision)
  ERRORS      runs that failed (another non-zero exit, or it could not start); BAD OUTPUT: stdout qhooks could
              not read; TIMEOUTS: runs stopped at their timeout. The same counts as qhooks stats --hooks`;
