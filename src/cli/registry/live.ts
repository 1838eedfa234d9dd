import type { CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";

export const live: CommandSpec = {
  path: ["live"],
  description: "print a one-time URL of the running server's live view: events appear in the browser as they are judged",
  define: (c) => c,
  action: async ({ command }) => {
    const { liveCommand } = await import("../commands/live.js");
    return liveCommand(cliContext(command));
  },
};
