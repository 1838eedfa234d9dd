import { Option } from "commander";
import { EVENT_NAMES } from "../../schema/eventNames.js";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { eventArgument } from "../eventArg.js";
import { collect } from "../filterOptions.js";
import { cliContext } from "../globals.js";
import { hostDialect } from "../../hosts/hosts.js";

export const run: CommandSpec = {
  path: ["run"],
  description: "run the hooks of one event: payload JSON on stdin, outcome JSON on stdout; exit 2 when blocked",
  statusIsTheAnswer: true,
  define: (c) =>
    c
      .argument("<event>", `one of ${EVENT_NAMES.join(", ")}`)
      .option("--settings <file>", "use exactly this settings file instead of the user/project/local ones (repeatable)", collect)
      .option("--plugin <dir>", "also run the hooks of this plugin folder (Claude Code's layout: hooks/hooks.json; repeatable)", collect)
      .option("--no-log", "do not append to the event log")
      .option("--no-hooks", "switch every hook off for this run (as QHOOKS_DISABLE=1): the event is still judged and logged, with the fact")
      .addOption(
        new Option("--format <format>", "json: the outcome; hook: answer in the Claude/Qoder hook protocol (needs --settings, or --dialect claude)")
          .choices(["json", "hook"])
          .default("json"),
      )
      .option("--ensure-server", "first start qhooks serve in the background if it is not running (what install --server's command entries do)")
      .option("--fail-closed", "when qhooks cannot judge (invalid payload, internal error), block (exit 2) instead of exit 1")
      .addHelpText(
        "after",
        `
Examples:
  echo '{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"rm -rf /tmp/x"}}' | qhooks run PreToolUse
  # as the one hook an agent calls, fanning out to the hooks of a file:
  qhooks run PreToolUse --format hook --settings ~/.config/qhooks/guards.json`,
      ),
  action: async ({ args: [event], opts, command }) => {
    const { runCommand, RunFlagsSchema } = await import("../commands/run.js");
    const context = cliContext(command, { detectDialect: false, holdEnvWarnings: true });
    return runCommand(eventArgument(event!, hostDialect(context.dialect).eventNames), flagsOf(RunFlagsSchema, opts), context);
  },
};
