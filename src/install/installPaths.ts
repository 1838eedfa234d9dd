import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { QhooksError } from "../errors.js";
import type { Dialect, ManagedSettings } from "../hosts/hostDialect.js";
import { localDataDir } from "../core/dataDir.js";
import { oneLineText } from "../text/oneLine.js";

/** Where an install puts qhooks' entries: the host's managed settings (every user), or the user's own settings file. */
export const INSTALL_SCOPES = ["managed", "user"] as const;
export type InstallScope = (typeof INSTALL_SCOPES)[number];

/**
 * Where an install's ownership record lives: outside every file the host reads, so that the host (which rewrites its
 * own settings files) never loses it. The one place these paths are decided, so that moving qhooks' data is one change.
 * A managed install belongs to the machine: its record sits in the managed folder, beside the files it guards, so that
 * any administrator (whatever HOME sudo gives) sees and undoes it; a user install's sits in the user's qhooks data.
 */
export function installRecordPath(host: Dialect, scope: InstallScope, homeDir: string, managed: ManagedSettings | null): string {
  if (scope === "managed") {
    if (managed === null) throw new Error(`no managed settings for ${host}`);
    return join(managed.dir, `qhooks-install-${host}.json`);
  }
  return join(localDataDir(homeDir), "installs", `${host}-user.json`);
}

/**
 * The script an installed entry starts, with the node that runs it now: the bin's `dist/bin/qhooks.cjs`, found from
 * the running CLI (npm's symlink resolved), so that an agent whose PATH lacks npm's prefix still reaches it.
 */
export function cliScriptOf(argv1: string | undefined): string {
  if (argv1 === undefined) throw new QhooksError("io", "cannot tell where qhooks' own script is (no script path in this process)");
  let real: string;
  try {
    real = realpathSync(argv1);
  } catch {
    throw new QhooksError("io", `cannot find qhooks' own script at ${oneLineText(argv1)}`);
  }
  const dir = dirname(real);
  const name = basename(real);
  // The bin itself, the bundle beside it (dist/bin/cli.cjs), or the compiled main (dist/src/cli/main.js).
  const script = name === "qhooks.cjs" ? real : name === "cli.cjs" ? join(dir, "qhooks.cjs") : join(dir, "..", "..", "bin", "qhooks.cjs");
  if (!existsSync(script)) throw new QhooksError("io", `cannot find qhooks' bin (dist/bin/qhooks.cjs) beside ${oneLineText(real)}`);
  return realpathSync(script);
}
