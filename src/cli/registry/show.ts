import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";

export const show: CommandSpec = {
  path: ["show"],
  description: "one event in full: payload, each hook's command, exit, duration and output, the outcome, the config hash, the chain",
  define: (c) =>
    c
      .argument("<seq>", "the event's SEQ, as qhooks log shows it")
      .option("--json", "the event as the log holds it (JSON; see docs/cli.md)")
      .option("--utc", "the time in UTC instead of the local zone")
      .addHelpText(
        "after",
        `
Examples:
  qhooks log --blocked          # find the event, by its SEQ
  qhooks show 41                # everything about it
  qhooks show 41 --json | jq -r '.outcome.hooks[0].stderr'`,
      ),
  action: async ({ args: [seq], opts, command }) => {
    const { showCommand, ShowFlagsSchema } = await import("../commands/show.js");
    return showCommand(seq!, flagsOf(ShowFlagsSchema, opts), cliContext(command));
  },
};
