import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { addFilterOptions, collect } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const replay: CommandSpec = {
  path: ["replay"],
  description: "re-judge recorded events with a hook config (hooks run for real, with QHOOKS_REPLAY=1, once confirmed) and show what changes",
  define: (c) =>
    addFilterOptions(
      c
        .option("--settings <file>", "judge with exactly this settings file (repeatable; default: the settings on disk for each event's project)", collect)
        .option("--plugin <dir>", "also run the hooks of this plugin folder (repeatable)", collect)
        .option("--match-only", "run nothing: only show which hooks would run")
        .option("--yes", "run the hooks without asking (needed when not on a terminal)")
        .option("--skip-event <event>", "do not judge events of this kind: their hooks do not run (repeatable)", collect)
        .option("--enforce-shadow", 'judge shadow hooks ("mode": "shadow") as enforced: what enforcing them would change')
        .option("--concurrency <n>", "events judged at once", "4")
        .option("--json", "{runId, events, changed, results: [...]}")
        .option("--list", "list past replay runs (a table on a terminal, tab-separated when piped, or --json)")
        .addHelpText(
          "after",
          `
Replay runs the hook commands for real. It first says how many hooks it will run on how many events, and asks on a
terminal; elsewhere it needs --yes. Hooks with side effects (notifications, formatters, audit logs) can be left out
by name in the settings: "qhooks": {"replay": {"skip": ["notify"], "stub": {"audit": {"exitCode": 0}}}}.

Examples:
  qhooks replay --session 3f2a9b1c --settings stricter.json      # what would the new rules have decided?
  qhooks replay --since 7d --skip-event Notification --yes       # without asking; Notification hooks do not run
  qhooks replay --event PreToolUse --since 7d --match-only       # which hooks would fire, without running them
  qhooks replay --since 7d --shadow --enforce-shadow             # what enforcing the shadow hooks would change`,
        ),
    ),
  action: async ({ opts, command }) => {
    const { replayCommand, ReplayFlagsSchema } = await import("../commands/replay.js");
    const { settings, plugin, matchOnly, yes, skipEvent, enforceShadow, concurrency, json, list, utc, ...filter } = opts;
    return replayCommand(
      flagsOf(ReplayFlagsSchema, { filter: { ...filter, utc }, settings, plugin, matchOnly, yes, skipEvent, enforceShadow, concurrency, json, list, utc }),
      cliContext(command),
    );
  },
};
