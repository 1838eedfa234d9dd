import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { addFilterOptions, collect } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const replay: CommandSpec = {
  path: ["replay"],
  description: "re-judge recorded events with a hook config (hooks run for real, with QHOOKS_REPLAY=1) and show what changes",
  define: (c) =>
    addFilterOptions(
      c
        .option("--settings <file>", "judge with exactly this settings file (repeatable; default: the settings on disk for each event's project)", collect)
        .option("--plugin <dir>", "also run the hooks of this plugin folder (repeatable)", collect)
        .option("--match-only", "run nothing: only show which hooks would run")
        .option("--enforce-shadow", 'judge shadow hooks ("mode": "shadow") as enforced: what enforcing them would change')
        .option("--concurrency <n>", "events judged at once", "4")
        .option("--json", "{runId, events, changed, results: [...]}")
        .option("--list", "list past replay runs (a table on a terminal, tab-separated when piped, or --json)")
        .addHelpText(
          "after",
          `
Examples:
  qhooks replay --session 3f2a9b1c --settings stricter.json      # what would the new rules have decided?
  qhooks replay --event PreToolUse --since 7d --match-only       # which hooks would fire, without running them
  qhooks replay --since 7d --shadow --enforce-shadow             # what enforcing the shadow hooks would change`,
        ),
    ),
  action: async ({ opts, command }) => {
    const { replayCommand, ReplayFlagsSchema } = await import("../commands/replay.js");
    const { settings, plugin, matchOnly, enforceShadow, concurrency, json, list, utc, ...filter } = opts;
    return replayCommand(
      flagsOf(ReplayFlagsSchema, { filter: { ...filter, utc }, settings, plugin, matchOnly, enforceShadow, concurrency, json, list, utc }),
      cliContext(command),
    );
  },
};
