import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { collect } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const explain: CommandSpec = {
  path: ["explain"],
  description: "why a logged event got its outcome: every hook of the configuration logged with it, with what became of it, and which hook decided",
  define: (c) =>
    c
      .argument("<seq|event>", "the event's SEQ (qhooks log shows it), or an event name with --payload")
      .option("--payload <file>", "explain this payload (a file, or - for stdin) as the given event, with the settings as they are now; no hook runs")
      .option("--settings <file>", "with --payload: exactly this settings file instead of the user/project/local ones (repeatable)", collect)
      .option("--plugin <dir>", "with --payload: also the hooks of this plugin folder (repeatable)", collect)
      .option("--each-host", "with --payload: how every host's rules would judge the event, side by side, with the decisions a host drops")
      .option("--json", "the explanation as JSON (qhooks schema explanation describes it)")
      .option("--utc", "show the time in UTC")
      .addHelpText(
        "after",
        `
Each hook gets one verdict: ran (its outcome and time), other event, no match (the matcher and the value it was
tested against), invalid (the warning), deduplicated (with which), skipped (and why), not run. A logged event is
explained from the configuration snapshot logged with it, never from today's files.

Examples:
  qhooks log --blocked                           # find the event, by its SEQ
  qhooks explain 41
  qhooks explain PreToolUse --payload call.json  # which hooks would run, and why the others would not
  qhooks explain PreToolUse --payload call.json --each-host  # every host's rules, side by side
  qhooks explain BeforeTool --host gemini --payload call.json  # a host's own event name
  qhooks explain 41 --json | jq '.hooks[] | select(.verdict.kind == "no-match")'`,
      ),
  action: async ({ args: [target], opts, command }) => {
    const { explainCommand, ExplainFlagsSchema } = await import("../commands/explain.js");
    return explainCommand(target!, flagsOf(ExplainFlagsSchema, opts), cliContext(command));
  },
};
