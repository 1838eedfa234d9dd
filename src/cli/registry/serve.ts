import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";

export const serve: CommandSpec = {
  path: ["serve"],
  description: "a local HTTP server that judges events as `qhooks run --format hook` does, for hosts' http hooks (docs/server.md)",
  define: (c) =>
    c
      .option("--port <port>", "the loopback port to listen on (default: the last server's, else a free one)")
      .option("--ensure", "start it in the background unless it runs; print where it listens")
      .option("--status", "whether it runs: version, address, pid, owner")
      .option("--stop", "stop the running server (its events under way are answered first)")
      .option("--idle-exit <duration>", "exit cleanly after no event for this long (30m, 2h, 90s); with --ensure, for the server it starts")
      .option("--rotate-token", "a new secret: the running server takes it at once and refuses the old one")
      .option(
        "--log-file <file>",
        "write the server's lines to FILE instead of stderr, rotated at 1 MiB (FILE.1 is the one old file kept); --ensure uses serve.log",
      )
      .option("--json", "with --status or --ensure: one JSON object")
      .addHelpText(
        "after",
        `
Routes (127.0.0.1 only; every request sends Authorization: Bearer <the secret in ~/.qhooks/server/token>):
  POST /hook/<dialect>   the event as the body; the project is X-Qhooks-Project, else found from the payload's cwd
  GET  /health           who listens (pid, version)`,
      ),
  action: async ({ opts, command }) => {
    const { serveCommand, ServeFlagsSchema } = await import("../commands/serve.js");
    return serveCommand(flagsOf(ServeFlagsSchema, opts), cliContext(command, { detectDialect: false }));
  },
};
