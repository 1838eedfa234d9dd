import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { InstalledPlugins } from "../hosts/hostDialect.js";
import type { PluginRequest } from "./plugins.js";

/**
 * The plugins installed in a host's plugin folder (Copilot CLI's `installed-plugins/<marketplace>/<plugin>/`, and
 * `_direct/<source>/` for those installed from a path or repository), in name order: each is asked for, in the host's
 * layout, without a warning when it brings no hooks (most plugins bring none). A missing folder is no plugins.
 */
export function installedPluginRequests(installed: InstalledPlugins): PluginRequest[] {
  const requests: PluginRequest[] = [];
  for (const source of foldersIn(installed.dir)) {
    for (const plugin of foldersIn(join(installed.dir, source))) {
      requests.push({
        root: join(installed.dir, source, plugin),
        namedBy: `${installed.display}/${source}/${plugin}`,
        explicit: false,
        id: `${plugin}@${source}`,
        layout: { manifests: installed.manifests, hooksFiles: installed.hooksFiles },
      });
    }
  }
  return requests;
}

function foldersIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.isSymbolicLink())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}
