import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { collect } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const trust: CommandSpec = {
  path: ["trust"],
  description: "show the untrusted hooks of the project, its local settings and plugins, and trust them (pinned to their content)",
  define: (c) =>
    c
      .option("--settings <file>", "the settings files to review instead of the discovered ones, as given to qhooks run (repeatable)", collect)
      .option("--plugin <dir>", "also review the hooks of this plugin folder, as given to qhooks run (repeatable)", collect)
      .option("--list", "list every trusted hook in the store")
      .option("--revoke [digest]", "untrust the hooks of this project and its plugins, or the entries whose digest starts with this")
      .option("--dry-run", "show what would be trusted or revoked; record nothing")
      .option("--json", "machine-readable output")
      .addHelpText(
        "after",
        `
With "qhooks": {"requireTrust": true} in the user-level settings (or QHOOKS_REQUIRE_TRUST=1), hooks from the
project's settings (<project>/.claude/settings.json under --dialect claude, .qoder/ under qoder...), its local
settings and plugins run only once trusted here. Trust is pinned to the
content: the command, and the bytes of each project or plugin file it runs (./scripts/guard.sh, bash x.sh,
python3 \${CLAUDE_PLUGIN_ROOT}/a.py). Editing either makes the hook untrusted again: it is skipped with a warning.
The store is ~/.qhooks/trust.json.

Examples:
  qhooks trust --dry-run          # what is untrusted here, and what each hook runs
  qhooks trust                    # trust it
  qhooks trust --list             # every trusted hook, all projects
  qhooks trust --revoke           # untrust this project's hooks (and its plugins')`,
      ),
  action: async ({ opts, command }) => {
    const { trustCommand, TrustFlagsSchema } = await import("../commands/trust.js");
    return trustCommand(flagsOf(TrustFlagsSchema, opts), cliContext(command));
  },
};
