import { QhooksError } from "../../errors.js";
import { hostChoicesText } from "../../hosts/hosts.js";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";

export const config: CommandSpec = {
  path: ["config"],
  description: "qhooks' own settings on this machine (~/.qhooks/config.json): the dialect commands you type read without --dialect",
  define: (c) =>
    c
      .argument("<setting>", "dialect")
      .argument("[value]", hostChoicesText())
      .option("--unset", "forget the setting")
      .addHelpText(
        "after",
        `
The dialect, without --dialect: $QHOOKS_DIALECT, else the one remembered here, else the one host whose settings files
exist for the project, else qoder. Entries the host calls (qhooks run, record) name their dialect and never read it.

Examples:
  qhooks config dialect               # the dialect in use here, and where it comes from
  qhooks config dialect claude        # remember Claude Code (qhooks install claude does it when none is set)
  qhooks config dialect --unset`,
      ),
  action: async ({ args: [setting, value], opts, command }) => {
    if (setting !== "dialect") throw new QhooksError("usage", `config ${setting}: the only setting is dialect (qhooks config dialect [HOST])`);
    const { configDialectCommand, ConfigFlagsSchema } = await import("../commands/config.js");
    return configDialectCommand(flagsOf(ConfigFlagsSchema, { ...opts, value }), cliContext(command));
  },
};
