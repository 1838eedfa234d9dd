import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { addWindowOptions, HOST_FILTER_HELP, hostFlag } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const stats: CommandSpec = {
  path: ["stats"],
  description: "counts by event and decision; per hook: runs, blocks, errors, timeouts, p50/p95/p99 time",
  define: (c) =>
    addWindowOptions(c, "table (on a terminal), tsv (when piped) or json", ["table", "tsv", "json"])
      .option("--by <key>", "host: the counts by event and decision for each agent host (events no host judged are counted apart)")
      .option("--hooks", "only the per-hook table: runs, blocks, errors, bad output, timeouts, p50/p95/p99 and max time, last run")
      .addHelpText(
        "after",
        `
Per hook: RUNS its runs (by hook name); BLOCKS runs that blocked (exit 2 or a blocking decision); ERRORS runs that
failed (another non-zero exit, or it could not start); BAD OUTPUT stdout qhooks could not read; TIMEOUTS runs stopped
at their timeout. qhooks hooks --usage counts the same, for each configured hook.`,
      )
      .addHelpText("after", HOST_FILTER_HELP),
  action: async ({ opts: { format, json, ...raw }, command }) => {
    const { statsCommand, WindowFlagsSchema } = await import("../commands/summaries.js");
    return statsCommand(flagsOf(WindowFlagsSchema, { ...raw, ...hostFlag(command), format: { format, json } }), cliContext(command));
  },
};
