import type { CommandSpec } from "../commandSpec.js";
import { eventArgument } from "../eventArg.js";

export const schema: CommandSpec = {
  path: ["schema"],
  description: "print a JSON Schema: settings (for editors: validation and completion), outcome, payload EVENT, hook-test, or explanation",
  define: (c) =>
    c
      .argument("[what]", "settings (the default), outcome, payload, hook-test (a line of a hook test file), or explanation (qhooks explain --json)")
      .argument("[event]", "for payload: the event whose payload to describe")
      .addHelpText(
        "after",
        `
Examples:
  qhooks schema settings > ~/.claude/settings.schema.json
  # then, in ~/.claude/settings.json (or your host's): { "$schema": "./settings.schema.json", "hooks": { ... } }
  qhooks schema payload PreToolUse`,
      ),
  action: async ({ args: [what, event] }) => {
    const { schemaCommand } = await import("../commands/schema.js");
    return schemaCommand(what ?? "settings", event === undefined ? undefined : eventArgument(event));
  },
};
