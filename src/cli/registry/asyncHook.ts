import type { CommandSpec } from "../commandSpec.js";

/** The detached process that runs one async hook of a `qhooks run` and logs its result; not for users. */
export const asyncHook: CommandSpec = {
  path: ["__async-hook"],
  description: "",
  hidden: true,
  define: (c) => c.argument("<job>"),
  action: async ({ args: [job] }) => {
    const { asyncHookCommand } = await import("../commands/asyncHook.js");
    return asyncHookCommand(job!);
  },
};
