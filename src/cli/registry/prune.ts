import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";

export const prune: CommandSpec = {
  path: ["prune"],
  description: "delete records older than a date; the chain is verified from the oldest record kept",
  define: (c) =>
    c
      .option("--before <when>", 'a span (90d, 12w) or a date; default: "qhooks": {"retention": "90d"} of the user-level settings')
      .option("--dry-run", "say what would be deleted; change nothing")
      .option("--json", "{records, events, from, bytesBefore, bytesAfter, leftovers} (with --dry-run: dryRun true, no sizes)")
      .addHelpText(
        "after",
        `
Examples:
  qhooks prune --before 90d --dry-run         # how much would go
  qhooks prune --before 90d
  qhooks prune --before 2026-01-01`,
      ),
  action: async ({ opts, command }) => {
    const { pruneCommand, PruneFlagsSchema } = await import("../commands/protect.js");
    return pruneCommand(flagsOf(PruneFlagsSchema, opts), cliContext(command));
  },
};
