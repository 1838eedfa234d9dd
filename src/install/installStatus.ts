import { existsSync } from "node:fs";
import type { HostDialect } from "../hosts/hostDialect.js";
import { INSTALL_SCOPES, installRecordPath } from "./installPaths.js";
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
      const record = readInstallRecord(installRecordPath(host.id, scope, homeDir, managed));
      if (record === null) {
        lines.push(`${host.name}, ${scope}: not installed`);
        continue;
      }
      const file = readTarget(record.file, record.file);
      const state =
        file.bytes === null
          ? "the file is gone"
          : sha256Of(file.bytes) === record.afterSha256
            ? "unchanged since"
            : "changed since (uninstall keeps the changes)";
      lines.push(`${host.name}, ${scope}: installed ${record.installedAt} in ${record.file}, ${record.entries.length} events; ${state}`);
      for (const path of [record.node, record.cli])
        if (!existsSync(path)) lines.push(`  ${path} is gone: every entry fails to start; install again, or uninstall`);
    }
  }
  return lines;
}
