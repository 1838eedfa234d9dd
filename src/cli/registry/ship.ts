import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";
import { DEFAULT_GIVE_UP_AFTER } from "../watchRounds.js";

export const ship: CommandSpec = {
  path: ["ship"],
  description: "copy the local log's new records to a central PostgreSQL database (resumable; each chain segment checked on arrival)",
  define: (c) =>
    c
      .requiredOption("--to <url>", "the central database: postgres://user@host:5432/database")
      .option("--watch", "keep shipping: a round every --interval until interrupted")
      .option("--interval <pause>", "pause between rounds with --watch: 500ms, 10s, 5m...", "30s")
      .option("--batch <n>", "records per transaction", "5000")
      .option("--give-up-after <n>", "with --watch: stop (exit 1) after this many failed rounds in a row", String(DEFAULT_GIVE_UP_AFTER))
      .addHelpText(
        "after",
        `
Examples:
  qhooks ship --to postgres://qhooks@db.internal:5432/qhooks           # once (e.g. as a SessionEnd hook)
  qhooks ship --to postgres://qhooks@db.internal:5432/qhooks --watch   # keep shipping every 30 s`,
      ),
  action: async ({ opts, command }) => {
    const { shipCommand, ShipFlagsSchema } = await import("../commands/ship.js");
    return shipCommand(flagsOf(ShipFlagsSchema, opts), cliContext(command));
  },
};
