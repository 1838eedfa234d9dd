import { userInfo } from "node:os";
import { z } from "zod";
import { EXIT } from "../../errors.js";
import { killAllGroupsNow } from "../../exec/processGroups.js";
import { ensureServer, liveServer, stopServer } from "../../server/control.js";
import { serverPaths } from "../../server/paths.js";
import { startServer } from "../../server/runServer.js";
import { rotateToken } from "../../server/token.js";
import { serveLogWriter } from "../../server/serveLog.js";
import { TOKEN_VARIABLE } from "../../install/serverEntries.js";
import type { CliContext } from "../globals.js";
import { err, out } from "../io.js";
import { version } from "../version.js";
import { boundOldGenerationGrowth } from "../oldGeneration.js";
import { holdYoungGeneration } from "../youngGeneration.js";
import { defaultLogPath } from "../../store/logPath.js";
import { isPostgresUrl } from "../../store/openStore.js";

export const ServeFlagsSchema = z
  .object({
    port: z.coerce
      .number({ error: "--port must be a number" })
      .int()
      .min(0, { error: "--port must be 0..65535" })
      .max(65535, { error: "--port must be 0..65535" })
      .optional(),
    idleExit: z
      .string()
      .regex(/^[1-9][0-9]{0,8}(ms|s|m|h)$/, { error: "takes a duration such as 30m (ms, s, m, h)" })
      .transform((text) => {
        const [, n, unit] = /^(\d+)(ms|s|m|h)$/.exec(text)!;
        return Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as "ms" | "s" | "m" | "h"];
      })
      .optional(),
    rotateToken: z.boolean().default(false),
    logFile: z.string().min(1).optional(),
    ensure: z.boolean().default(false),
    status: z.boolean().default(false),
    stop: z.boolean().default(false),
    json: z.boolean().default(false),
  })
  .refine((f) => [f.ensure, f.status, f.stop, f.rotateToken].filter(Boolean).length <= 1, {
    error: "--ensure, --status, --stop and --rotate-token go one at a time",
  });
export type ServeFlags = z.infer<typeof ServeFlagsSchema>;

/** How long a stopping server waits for the hooks of events under way before it stops them. */
const STOP_GRACE_MS = 30_000;
const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/** `qhooks serve`: the server in the foreground, or `--ensure`, `--status`, `--stop` of the user's one server. */
export async function serveCommand(flags: ServeFlags, context: CliContext): Promise<number> {
  if (flags.status) {
    const server = await liveServer(context.homeDir);
    if (server === null) {
      if (flags.json) out(JSON.stringify({ running: false }));
      else out("qhooks serve: not running");
      return EXIT.failure;
    }
    const { health } = server;
    const owner = health.uid === null ? "?" : `${ownerName(health.uid)} (uid ${health.uid})`;
    if (flags.json) out(JSON.stringify({ running: true, url: server.url, ...health, proof: undefined }));
    else out(`qhooks serve ${health.version}: listening on ${server.url}, pid ${health.pid}, owner ${owner}, since ${health.startedAt}`);
    return EXIT.ok;
  }
  if (flags.stop) {
    const stopped = await stopServer(context.homeDir);
    out(stopped === null ? "qhooks serve: not running" : `qhooks serve: stopped (pid ${stopped.health.pid})`);
    return EXIT.ok;
  }
  if (flags.rotateToken) {
    const tokenFile = serverPaths(context.homeDir).token;
    rotateToken(tokenFile);
    // Proven with the new secret: the running server took it (it reads the file at each request).
    const server = await liveServer(context.homeDir);
    out(
      `qhooks serve: a new secret is in ${tokenFile}; ${server === null ? "no server runs" : `the running server (pid ${server.health.pid}) uses it now`}, the old one is refused`,
    );
    err(`qhooks: note: installed entries send $${TOKEN_VARIABLE}: export it again from ${tokenFile} and restart the agent's sessions`);
    return EXIT.ok;
  }
  if (flags.ensure) {
    const { server, started, replaced } = await ensureServer({
      homeDir: context.homeDir,
      command: process.execPath,
      args: [
        process.argv[1] ?? "",
        "serve",
        ...(flags.port !== undefined ? ["--port", String(flags.port)] : []),
        ...(flags.idleExit !== undefined ? ["--idle-exit", `${flags.idleExit}ms`] : []),
        ...(context.dbPath !== defaultLogPath(context.env, context.homeDir) && !isPostgresUrl(context.dbPath) ? ["--db", context.dbPath] : []),
      ],
      env: context.env,
      version: version(),
    });
    if (flags.json) out(JSON.stringify({ url: server.url, pid: server.health.pid, version: server.health.version, started, replaced }));
    else if (replaced !== null) out(`qhooks serve: restarted on ${server.url} (pid ${server.health.pid}): it ran qhooks ${replaced}, this is ${version()}`);
    else out(`qhooks serve: ${started ? "started" : "running"} on ${server.url} (pid ${server.health.pid})`);
    if (server.health.version !== version())
      err(`qhooks: note: the server runs qhooks ${server.health.version}, this is ${version()}; left running (restart it: qhooks serve --stop, then --ensure)`);
    return EXIT.ok;
  }
  return foreground(flags, context);
}

async function foreground(flags: ServeFlags, context: CliContext): Promise<number> {
  // The server winds down its own way (events under way answered and logged): main.ts's handlers, which kill every
  // hook at once and die of the signal, are for one-shot commands.
  for (const s of SIGNALS) process.removeAllListeners(s);
  const say = flags.logFile === undefined ? err : serveLogWriter(flags.logFile, err);
  let stop!: (signal: NodeJS.Signals) => void;
  const stopped = new Promise<NodeJS.Signals>((resolve) => (stop = resolve));
  let signals = 0;
  // A second signal while winding down: the hooks still running are killed now, and their events answered as such.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signals++ === 0) return stop(signal);
    say(`qhooks serve: ${signal} again: stopping the hooks still running`);
    killAllGroupsNow();
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  // A server lives for hours: a burst of events must not leave V8's young generation at its largest for the rest,
  // nor its old generation fill with hours of the dead between full collections.
  const releaseYoungGeneration = holdYoungGeneration();
  boundOldGenerationGrowth();
  const server = await startServer({
    homeDir: context.homeDir,
    env: context.env,
    db: context.dbPath,
    port: flags.port,
    version: version(),
    say,
    ...(flags.idleExit !== undefined ? { idleExitMs: flags.idleExit } : {}),
  });
  say(`qhooks serve: listening on ${server.url} (pid ${process.pid}); the secret is in ${serverPaths(context.homeDir).token}`);
  const signal = await Promise.race([stopped, server.idle.then(() => null)]);
  say(
    signal === null
      ? `qhooks serve: no event for ${flags.idleExit} ms (--idle-exit): stopping`
      : `qhooks serve: ${signal}: answering the events under way, then stopping`,
  );
  await server.close(STOP_GRACE_MS);
  releaseYoungGeneration();
  say("qhooks serve: stopped");
  return EXIT.ok;
}

function ownerName(uid: number): string {
  try {
    const me = userInfo();
    return me.uid === uid ? me.username : String(uid);
  } catch {
    return String(uid);
  }
}
