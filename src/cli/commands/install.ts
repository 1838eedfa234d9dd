import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { DIALECTS, type Dialect } from "../../hosts/hostDialect.js";
import { HOSTS, hostDialect } from "../../hosts/hosts.js";
import { install } from "../../install/install.js";
import { cliScriptOf } from "../../install/installPaths.js";
import { installStatus } from "../../install/installStatus.js";
import { uninstall } from "../../install/uninstall.js";
import type { CliContext } from "../globals.js";
import { out } from "../io.js";

export const InstallFlagsSchema = z.object({
  scope: z.enum(["managed", "user"]).optional(),
  dryRun: z.boolean().default(false),
  status: z.boolean().default(false),
});
export type InstallFlags = z.infer<typeof InstallFlagsSchema>;

function hostArgument(host: string | undefined): Dialect {
  if (host === undefined) throw new QhooksError("usage", `which agent? qhooks install ${DIALECTS.join(" or qhooks install ")}`);
  if (!(DIALECTS as readonly string[]).includes(host)) throw new QhooksError("usage", `unknown host "${host}": expected ${DIALECTS.join(" or ")}`);
  return host as Dialect;
}

/** `qhooks install <host>` (and `--status`). */
export function installCommand(host: string | undefined, flags: InstallFlags, context: CliContext): number {
  if (flags.status) {
    const hosts = host === undefined ? Object.values(HOSTS) : [hostDialect(hostArgument(host))];
    out(installStatus(hosts, context.homeDir, context.env, process.platform).join("\n"));
    return EXIT.ok;
  }
  const dialect = hostDialect(hostArgument(host));
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
  });
  out(lines.join("\n"));
  return EXIT.ok;
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
