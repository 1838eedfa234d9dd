import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";

export const verify: CommandSpec = {
  path: ["verify"],
  description: "check the log's hash chain: ok: N records, or exit 3 naming the first bad record",
  define: (c) => c.option("--json", "machine-readable output"),
  action: async ({ opts, command }) => {
    const { verifyCommand, VerifyFlagsSchema } = await import("../commands/summaries.js");
    return verifyCommand(flagsOf(VerifyFlagsSchema, opts), cliContext(command));
  },
};
