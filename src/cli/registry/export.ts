import { Option } from "commander";
import { QhooksError } from "../../errors.js";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { addFilterOptions } from "../filterOptions.js";
import { cliContext } from "../globals.js";
import { version } from "../version.js";
import { DEFAULT_GIVE_UP_AFTER } from "../watchRounds.js";

export const exportLog: CommandSpec = {
  path: ["export"],
  description: "send the log's events and outcomes to an OpenTelemetry collector as OTLP log records (OTLP/HTTP), or write signed evidence of them",
  define: (c) =>
    addFilterOptions(
      c
        .option("--otlp <url>", "the collector: http://host:4318 (/v1/logs is added) or the full URL of its logs endpoint")
        .option(
          "--evidence <file>",
          "instead: write the selected events (--session, --since; centrally one --writer's) as evidence that verifies offline (docs/evidence.md)",
        )
        .addOption(new Option("--protocol <protocol>", "how records are encoded").choices(["protobuf", "json"]).default("protobuf"))
        .option("--watch", "keep exporting: a round every --interval until interrupted, each event sent once it has its outcome")
        .option("--interval <pause>", "pause between rounds with --watch: 500ms, 10s, 5m...", "10s")
        .option("--give-up-after <n>", "with --watch: stop (exit 1) after this many failed rounds in a row", String(DEFAULT_GIVE_UP_AFTER))
        .option(
          "--cursor <file>",
          "where the export stands, to go on from there next time (default with --watch: one file per log and collector in ~/.qhooks/export-cursors)",
        )
        .addHelpText(
          "after",
          `
Examples:
  qhooks export --otlp http://localhost:4318 --since 7d       # the last week, once
  qhooks export --otlp http://collector:4318 --watch          # keep sending new events; a restart goes on where it stopped
  qhooks export --evidence s1.json --session s1               # one session, signed; qhooks verify --evidence s1.json checks it`,
        ),
    ),
  action: async ({ opts, command }) => {
    if (opts.evidence !== undefined) {
      if (opts.otlp !== undefined) throw new QhooksError("usage", "--otlp and --evidence: choose one");
      const { exportEvidenceCommand, ExportEvidenceFlagsSchema } = await import("../commands/evidence.js");
      const { evidence, session, since, utc, writer, watch, cursor, ...rest } = opts;
      const other = Object.keys(rest).find((k) => rest[k] !== undefined && !["protocol", "interval", "giveUpAfter"].includes(k));
      if (watch || cursor !== undefined || other !== undefined) {
        throw new QhooksError(
          "usage",
          `--evidence selects by --session, --since and --writer only (not --${(other ?? (watch ? "watch" : "cursor")).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)})`,
        );
      }
      return exportEvidenceCommand(flagsOf(ExportEvidenceFlagsSchema, { evidence, sessions: session, since, utc, writer }), cliContext(command));
    }
    const { exportCommand, ExportFlagsSchema } = await import("../commands/export.js");
    const { otlp, protocol, watch, interval, giveUpAfter, cursor, ...filter } = opts;
    return exportCommand(flagsOf(ExportFlagsSchema, { otlp, protocol, watch, interval, giveUpAfter, cursor, filter, version: version() }), cliContext(command));
  },
};
