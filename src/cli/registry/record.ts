import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { eventArgument } from "../eventArg.js";
import { cliContext } from "../globals.js";
import { hostDialect } from "../../hosts/hosts.js";

export const record: CommandSpec = {
  path: ["record"],
  description: "a hook that only records: appends the payload on stdin to the log, prints nothing, exits 0 (1 on bad input)",
  statusIsTheAnswer: true,
  define: (c) =>
    c
      .argument("[event]", "the event (default: the payload's hook_event_name)")
      .option("--print-settings", "print the settings snippet that puts qhooks record on all twelve classic events (every event with --dialect claude)"),
  action: async ({ args: [event], opts, command }) => {
    const { recordCommand, RecordFlagsSchema } = await import("../commands/record.js");
    const context = cliContext(command, { detectDialect: false });
    return recordCommand(
      event === undefined ? undefined : eventArgument(event, hostDialect(context.dialect).eventNames),
      flagsOf(RecordFlagsSchema, opts),
      context,
    );
  },
};
