import { FORMAT_HELP, flagsOf, type CommandSpec } from "../commandSpec.js";
import { addWindowOptions, HOST_FILTER_HELP, hostFlag } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const sessions: CommandSpec = {
  path: ["sessions"],
  description: "one row per session: first and last event, events, blocked",
  define: (c) => addWindowOptions(c, FORMAT_HELP, ["table", "tsv", "json", "jsonl"]).addHelpText("after", HOST_FILTER_HELP),
  action: async ({ opts: { format, json, ...raw }, command }) => {
    const { sessionsCommand, WindowFlagsSchema } = await import("../commands/summaries.js");
    return sessionsCommand(flagsOf(WindowFlagsSchema, { ...raw, ...hostFlag(command), format: { format, json } }), cliContext(command));
  },
};
