import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { DIALECTS, type Dialect } from "../../hosts/hostDialect.js";
import { HOSTS, hostChoicesText, hostDialect } from "../../hosts/hosts.js";
import { install } from "../../install/install.js";
import { cliScriptOf } from "../../install/installPaths.js";
import { installStatus } from "../../install/installStatus.js";
import { uninstall } from "../../install/uninstall.js";
import { checkHostVersion, MIN_CLAUDE_VERSION, TOKEN_VARIABLE, type ServerTarget } from "../../install/serverEntries.js";
import { claudeVersionOutput } from "../../install/hostVersion.js";
import { liveServer } from "../../server/control.js";
import { serverPaths } from "../../server/paths.js";
import { readOrCreateToken } from "../../server/token.js";
import type { CliContext } from "../globals.js";
import { out } from "../io.js";

export const InstallFlagsSchema = z.object({
  scope: z.enum(["managed", "user"]).optional(),
  dryRun: z.boolean().default(false),
  status: z.boolean().default(false),
  server: z.boolean().default(false),
});
export type InstallFlags = z.infer<typeof InstallFlagsSchema>;

function hostArgument(host: string | undefined): Dialect {
  if (host === undefined) throw new QhooksError("usage", `which agent? qhooks install HOST, where HOST is one of ${hostChoicesText()}`);
  if (!(DIALECTS as readonly string[]).includes(host)) throw new QhooksError("usage", `unknown host "${host}": expected ${hostChoicesText()}`);
  return host as Dialect;
}

/** `qhooks install <host>` (and `--status`). */
export async function installCommand(host: string | undefined, flags: InstallFlags, context: CliContext): Promise<number> {
  if (flags.status) {
    const hosts = host === undefined ? Object.values(HOSTS) : [hostDialect(hostArgument(host))];
    out(installStatus(hosts, context.homeDir, context.env, process.platform).join("\n"));
    return EXIT.ok;
  }
  const dialect = hostDialect(hostArgument(host));
  // install writes matcher groups; a host whose files hold one hook per entry (Cursor) would not read them.
  if (dialect.readHookEntry !== undefined && dialect.writeHookEntry === undefined)
    throw new QhooksError(
      "usage",
      `qhooks install ${dialect.id} is not supported: ${dialect.name}'s files hold one hook per entry, which install does not write; add the entries by hand (docs/hosts.md); nothing was changed`,
    );
  const scope = flags.scope ?? (dialect.managedSettings(context.env, process.platform) !== null ? "managed" : "user");
  const lines = install({
    host: dialect,
    scope,
    homeDir: context.homeDir,
    projectDir: context.projectDir,
    env: context.env,
    platform: process.platform,
    node: process.execPath,
    cli: cliScriptOf(process.argv[1]),
    dryRun: flags.dryRun,
    server: flags.server ? await serverTarget(dialect.id, context) : null,
  });
  out(lines.join("\n"));
  return EXIT.ok;
}

/**
 * `install --server`: the user's running server, verified by its challenge before its address goes into the entries
 * (a port squatted by another process must never be written as qhooks').
 */
async function serverTarget(host: Dialect, context: CliContext): Promise<ServerTarget> {
  if (host !== "claude") throw new QhooksError("usage", "--server is for Claude Code (qhooks install claude --server): its http hooks call the server");
  const server = await liveServer(context.homeDir);
  const tokenFile = serverPaths(context.homeDir).token;
  if (server === null)
    throw new QhooksError(
      "usage",
      `no qhooks server answers for ${context.homeDir}: start it first (qhooks serve --ensure, as the user whose sessions it serves); nothing was changed`,
    );
  // A Claude Code without http hooks' onFailure would treat every failure as non-blocking: a dead server would let
  // the guarded events through, silently. Refused when `claude --version` says so; said when it cannot be told.
  const hostVersion = checkHostVersion(claudeVersionOutput(context.env));
  if (hostVersion.kind === "too-old")
    throw new QhooksError(
      "usage",
      `Claude Code ${hostVersion.version} is older than ${MIN_CLAUDE_VERSION}, which --server needs (http hooks with onFailure): update Claude Code, or install the command entries (qhooks install claude); nothing was changed`,
    );
  return { url: server.url, tokenFile, tokenExported: context.env[TOKEN_VARIABLE] === readOrCreateToken(tokenFile), hostVersion };
}

/** `qhooks uninstall <host>`. */
export function uninstallCommand(host: string | undefined, flags: InstallFlags, context: CliContext): number {
  const lines = uninstall({
    host: hostDialect(hostArgument(host)),
    scope: flags.scope,
    homeDir: context.homeDir,
    env: context.env,
    platform: process.platform,
    dryRun: flags.dryRun,
  });
  out(lines.join("\n"));
  return EXIT.ok;
}
