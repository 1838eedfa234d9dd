import { Option } from "commander";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { collect } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const doctor: CommandSpec = {
  path: ["doctor"],
  description:
    "check the hook configuration: each problem (a missing script, a matcher that never matches, a guard that cannot block...) with its file, line and fix",
  define: (c) =>
    c
      .addOption(new Option("--format <format>", "pretty (the default), json, or github (workflow annotations)").choices(["pretty", "json", "github"]))
      .addOption(new Option("--fail-on <level>", "exit 1 when a finding at or above this level exists (default: error)").choices(["error", "warn"]))
      .option("--settings <file>", "check these settings files instead of the discovered ones (repeatable)", collect)
      .option("--plugin <dir>", "also check the hooks of this plugin folder (repeatable)", collect)
      .addHelpText(
        "after",
        `
Each finding names its rule, level (error, warn, info), settings level, file, line and JSON path, with a one-line
fix. The rules are listed in docs/doctor.md. Nothing is run: scripts are looked at, never executed.

Examples:
  qhooks doctor
  qhooks doctor --dialect claude --fail-on warn
  qhooks doctor --format github      # in a CI step: annotations on the settings files`,
      ),
  action: async ({ opts, command }) => {
    const { doctorCommand, DoctorFlagsSchema } = await import("../commands/doctor.js");
    return doctorCommand(flagsOf(DoctorFlagsSchema, opts), cliContext(command));
  },
};
