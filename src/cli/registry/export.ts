import { Option } from "commander";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { addFilterOptions } from "../filterOptions.js";
import { cliContext } from "../globals.js";
import { version } from "../version.js";
import { DEFAULT_GIVE_UP_AFTER } from "../watchRounds.js";

export const exportLog: CommandSpec = {
  path: ["export"],
  description: "send the log's events and outcomes to an OpenTelemetry collector as OTLP log records (OTLP/HTTP)",
  define: (c) =>
    addFilterOptions(
      c
        .requiredOption("--otlp <url>", "the collector: http://host:4318 (/v1/logs is added) or the full URL of its logs endpoint")
        .addOption(new Option("--protocol <protocol>", "how records are encoded").choices(["protobuf", "json"]).default("protobuf"))
        .option("--watch", "keep exporting: a round every --interval until interrupted, each event sent once it has its outcome")
        .option("--interval <pause>", "pause between rounds with --watch: 500ms, 10s, 5m...", "10s")
        .option("--give-up-after <n>", "with --watch: stop (exit 1) after this many failed rounds in a row", String(DEFAULT_GIVE_UP_AFTER))
        .option(
          "--cursor <file>",
          "where the export stands, to go on from there next time (default with --watch: one file per log and collector in ~/.qoder-cn/qhooks/export-cursors)",
        )
        .addHelpText(
          "after",
          `
Examples:
  qhooks export --otlp http://localhost:4318 --since 7d       # the last week, once
  qhooks export --otlp http://collector:4318 --watch          # keep sending new events; a restart goes on where it stopped`,
        ),
    ),
  action: async ({ opts, command }) => {
    const { exportCommand, ExportFlagsSchema } = await import("../commands/export.js");
    const { otlp, protocol, watch, interval, giveUpAfter, cursor, ...filter } = opts;
    return exportCommand(flagsOf(ExportFlagsSchema, { otlp, protocol, watch, interval, giveUpAfter, cursor, filter, version: version() }), cliContext(command));
  },
};
