import { Option } from "commander";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { hostChoicesText } from "../../hosts/hosts.js";
import { cliContext } from "../globals.js";

export const install: CommandSpec = {
  path: ["install"],
  description: "put qhooks in front of an agent's hooks: its entries in the agent's settings, recorded so that uninstall undoes them exactly",
  define: (c) =>
    c
      .argument("[host]", hostChoicesText())
      .addOption(
        new Option(
          "--scope <scope>",
          "managed: Claude Code's managed settings (every user; needs sudo), where qhooks runs every hook itself; user: your own settings file, where qhooks records every event and the agent runs its hooks (default: managed for claude, user for qoder)",
        ).choices(["managed", "user"]),
      )
      .option("--dry-run", "print the exact change (a diff of each file) and write nothing")
      .option("--status", "say what is installed where, for every host (or the one named)")
      .option("--server", "claude, managed: http entries calling your running qhooks serve instead of a qhooks process per event (docs/server.md)")
      .addHelpText(
        "after",
        `
Examples:
  qhooks install claude --dry-run              # the change to /etc/claude-code/managed-settings.d/50-qhooks.json
  sudo qhooks install claude                   # Claude Code runs only qhooks; qhooks runs every hook
  qhooks install claude --scope user           # no sudo: qhooks records every event, Claude Code runs its hooks
  qhooks serve --ensure && sudo HOME=$HOME qhooks install claude --server   # the entries call your running server
  qhooks install --status
  QHOOKS_CLAUDE_MANAGED_DIR=/tmp/managed qhooks install claude   # another managed folder (tests)`,
      ),
  action: async ({ args: [host], opts, command }) => {
    const { installCommand, InstallFlagsSchema } = await import("../commands/install.js");
    return installCommand(host, flagsOf(InstallFlagsSchema, opts), cliContext(command));
  },
};
