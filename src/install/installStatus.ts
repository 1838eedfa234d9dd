import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { HostDialect } from "../hosts/hostDialect.js";
import { QhooksError } from "../errors.js";
import { INSTALL_SCOPES, installRecordPath, type InstallScope } from "./installPaths.js";
import { readInstallRecord } from "./installRecordFile.js";
import { readTarget, sha256Of } from "./targetFile.js";

/** `qhooks install --status`: for each host and scope, whether qhooks is installed, where, and whether it still works. */
export function installStatus(
  hosts: readonly HostDialect[],
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): string[] {
  const lines: string[] = [];
  for (const host of hosts) {
    const managed = host.managedSettings(env, platform);
    for (const scope of INSTALL_SCOPES) {
      if (scope === "managed" && managed === null) {
        lines.push(`${host.name}, managed: not available (${host.name} has no managed settings)`);
        continue;
      }
      // A folder this user cannot read (a managed one, root's), a damaged record: one line, and the other installs follow.
      const recordPath = installRecordPath(host.id, scope, homeDir, managed);
      const folder = folderProblem(dirname(recordPath));
      if (folder !== null) {
        lines.push(`${host.name}, ${scope}: cannot tell: ${dirname(recordPath)} ${folder}`);
        continue;
      }
      try {
        lines.push(...scopeStatus(host, scope, recordPath));
      } catch (e) {
        if (!(e instanceof QhooksError)) throw e;
        // The reader's words are install's and uninstall's, who change files; a status changes none.
        lines.push(`${host.name}, ${scope}: cannot tell: ${e.message.replace("; nothing was changed", "")}`);
      }
    }
  }
  return lines;
}

function scopeStatus(host: HostDialect, scope: InstallScope, recordPath: string): string[] {
  const record = readInstallRecord(recordPath);
  if (record === null) return [`${host.name}, ${scope}: not installed`];
  const file = readTarget(record.file, record.file);
  const state =
    file.bytes === null ? "the file is gone" : sha256Of(file.bytes) === record.afterSha256 ? "unchanged since" : "changed since (uninstall keeps the changes)";
  const lines = [`${host.name}, ${scope}: installed ${record.installedAt} in ${record.file}, ${record.entries.length} events; ${state}`];
  for (const path of [record.node, record.cli]) if (!existsSync(path)) lines.push(`  ${path} is gone: every entry fails to start; install again, or uninstall`);
  return lines;
}

/** Why the folder that would hold an install record cannot be looked into; null when it can, or does not exist (nothing installed). */
function folderProblem(dir: string): string | null {
  try {
    if (!statSync(dir).isDirectory()) return "is not a folder";
    accessSync(dir, constants.R_OK | constants.X_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ENOTDIR") return "is not a folder";
    return `cannot be read (${code ?? String(e)})`;
  }
}
