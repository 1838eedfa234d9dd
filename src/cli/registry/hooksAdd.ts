import { Option } from "commander";
import { QhooksError } from "../../errors.js";
import { EVENT_NAMES } from "../../schema/eventNames.js";
import { flagsGiven, flagsOf, parentOpts, type CommandSpec } from "../commandSpec.js";
import { eventArgument } from "../eventArg.js";
import { cliContext } from "../globals.js";

export const hooksAdd: CommandSpec = {
  path: ["hooks", "add"],
  description: "add a hook to a settings file, changing nothing else in it (its formatting and other settings stay)",
  define: (c) =>
    c
      .argument("<event>", `one of ${EVENT_NAMES.join(", ")}`)
      .requiredOption("--command <command>", "the shell command the hook runs (/bin/sh -c, in the project directory)")
      .option("--matcher <matcher>", "which tools (or sources, agent types...) it applies to: Bash, Write|Edit, mcp__.*; default all")
      .addOption(
        new Option(
          "--level <level>",
          "which settings file of the host (--dialect): user (yours: ~/.claude/settings.json with --dialect claude, ~/.qoder-cn/settings.json with qoder...), project (<project>/.claude/settings.json..., shared with the repository) or local (settings.local.json beside it); qhooks hooks lists the files",
        )
          .choices(["user", "project", "local"])
          .default("user"),
      )
      .option("--file <path>", "add to this settings file instead (e.g. one that qhooks run --settings reads)")
      .option("--timeout <seconds>", "seconds before the hook is stopped (default 60)")
      .option("--name <name>", "a name for logs and messages (default: the command)")
      .option("--shadow", 'in shadow mode ("mode": "shadow"): it runs and its verdict is logged, but it never changes the outcome')
      .addHelpText(
        "after",
        `
Examples:
  qhooks hooks add PreToolUse --matcher Bash --command ~/hooks/block-rm.sh
  qhooks hooks add PostToolUse --matcher 'Write|Edit' --command 'npx prettier --write .' --level project --timeout 30
  qhooks hooks add PreToolUse --matcher Bash --command ./guards/no-curl.sh --level project --shadow   # try a guard first`,
      ),
  action: async ({ args: [event], opts, command }) => {
    // Commander gives the listing's own flags to `qhooks hooks`, even after `add`: one of them here is a mistake
    // (`--settings f.json` meant as the file to add to would otherwise add to the user's settings).
    const stray = flagsGiven(parentOpts(command));
    if (stray.length)
      throw new QhooksError("usage", `hooks add: ${stray.join(", ")} belongs to qhooks hooks, not to hooks add (--file FILE adds to a given file)`);
    const { hooksAddCommand, HooksAddFlagsSchema } = await import("../commands/hooksAdd.js");
    return hooksAddCommand(eventArgument(event!), flagsOf(HooksAddFlagsSchema, opts), cliContext(command));
  },
};
