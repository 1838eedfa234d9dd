import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";

export const erase: CommandSpec = {
  path: ["erase"],
  description: "remove the content of logged events (payload, reasons, hook output); the chain still verifies",
  define: (c) =>
    c
      .option("--seq <n>", "one event (and its outcome)")
      .option("--session <id>", "every event of a session")
      .option("--pattern <text>", "every event whose payload, reason or hook output holds this text (case-sensitive, not a regex)")
      .option("--why <text>", "kept with the erasure records")
      .option("--dry-run", "say how many events would be erased; change nothing")
      .option("--json", "{events, records, leftovers} (with --dry-run: dryRun true)")
      .addHelpText(
        "after",
        `
The time, event, session, tool, project and decision of each event stay; qhooks verify reports the records as erased.

Examples:
  qhooks erase --pattern 'sk-live-1234' --dry-run   # which events hold it
  qhooks erase --pattern 'sk-live-1234'        # a secret found later
  qhooks erase --session 3f2a9b1c --why "user request"`,
      ),
  action: async ({ opts, command }) => {
    const { eraseCommand, EraseFlagsSchema } = await import("../commands/protect.js");
    return eraseCommand(flagsOf(EraseFlagsSchema, opts), cliContext(command));
  },
};
