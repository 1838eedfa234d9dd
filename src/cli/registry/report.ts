import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { addFilterOptions, HOST_FILTER_HELP, hostFlag } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const report: CommandSpec = {
  path: ["report"],
  description: "write a session timeline as one self-contained HTML file: hooks by duration, decisions, blocked events, per-hook charts",
  define: (c) =>
    addFilterOptions(
      c
        .option("-o, --output <file>", "the HTML file to write (default qhooks-report.html in the working directory; - for stdout)")
        .option(
          "-n, --limit <n>",
          "read at most this many matching events, newest first (default 50000), or all; the timeline draws the newest 1000 one by one",
        )
        .addHelpText(
          "after",
          `
The page needs no network: its styles and script are inside it. Open it in any browser.

Examples:
  qhooks report --session 3f2a9b1c            # one session (a unique prefix of its id will do)
  qhooks report --since yesterday -o today.html
  qhooks report --blocked --since 7d          # only what was blocked this week`,
        ),
    ).addHelpText("after", HOST_FILTER_HELP),
  action: async ({ opts, command }) => {
    const { reportCommand, ReportFlagsSchema } = await import("../commands/report.js");
    const { output, limit, utc, ...filter } = opts;
    return reportCommand(flagsOf(ReportFlagsSchema, { filter: { ...filter, ...hostFlag(command), utc }, output, limit, utc }), cliContext(command));
  },
};
