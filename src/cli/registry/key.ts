import { QhooksError } from "../../errors.js";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";

export const key: CommandSpec = {
  path: ["key"],
  description: "change the log's signing key: rotate (signed by the old key), or reset --lost (a visible break)",
  define: (c) =>
    c
      .argument("<what>", "rotate | reset")
      .option("--lost", "with reset: the old key is gone; record that, unsigned by it")
      .addHelpText(
        "after",
        `
Examples:
  qhooks key rotate            # new key pair; a key record signed by the old key names it
  qhooks key reset --lost      # the key file is gone: a key record says so, and verify reports the break`,
      ),
  action: async ({ args, opts, command }) => {
    if (args[0] !== "rotate" && args[0] !== "reset") throw new QhooksError("usage", `key ${args[0]}: expected key rotate, or key reset --lost`);
    const { keyCommand, KeyFlagsSchema } = await import("../commands/key.js");
    return keyCommand(flagsOf(KeyFlagsSchema, { ...opts, what: args[0] }), cliContext(command));
  },
};
