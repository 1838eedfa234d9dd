import { Option } from "commander";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { hostChoicesText } from "../../hosts/hosts.js";
import { cliContext } from "../globals.js";

export const uninstall: CommandSpec = {
  path: ["uninstall"],
  description: "undo qhooks install: an unchanged file restored byte for byte, a changed one losing only qhooks' entries",
  define: (c) =>
    c
      .argument("<host>", hostChoicesText())
      .addOption(new Option("--scope <scope>", "only this install (default: every install for the host)").choices(["managed", "user"]))
      .option("--dry-run", "print the exact change and write nothing"),
  action: async ({ args: [host], opts, command }) => {
    const { uninstallCommand, InstallFlagsSchema } = await import("../commands/install.js");
    return uninstallCommand(host, flagsOf(InstallFlagsSchema, opts), cliContext(command));
  },
};
