import { dirname, isAbsolute, join, resolve } from "node:path";
import { isDirectory } from "../settings/isDirectory.js";

/**
 * The project of an event that came over HTTP, which carries no $CLAUDE_PROJECT_DIR: the one the caller names
 * (X-Qhooks-Project or `?project=`, written by the install), else the nearest folder from the payload's `cwd` up that
 * holds the host's project folder (`.claude`, `.qoder`; the home folder's own is the user level, not a project),
 * else `cwd` itself. A string is the reason there is none.
 */
export function projectOf(named: string | undefined, cwd: unknown, projectFolder: string, homeDir: string): { readonly dir: string } | string {
  const found = named === undefined ? findProject(cwd, projectFolder, homeDir) : { dir: named, holdsProjectFolder: false };
  if ("error" in found) return found.error;
  // A folder that holds the project folder is one: the stat is spared (one of the few every event pays).
  if (!found.holdsProjectFolder && !isDirectory(found.dir)) return `project directory ${found.dir} does not exist`;
  return { dir: found.dir };
}

function findProject(
  cwd: unknown,
  projectFolder: string,
  homeDir: string,
): { readonly dir: string; readonly holdsProjectFolder: boolean } | { readonly error: string } {
  if (typeof cwd !== "string" || !isAbsolute(cwd)) {
    return { error: "no project: the payload has no absolute cwd, and neither X-Qhooks-Project nor ?project= names one" };
  }
  const home = resolve(homeDir);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (dir !== home && isDirectory(join(dir, projectFolder))) return { dir, holdsProjectFolder: true };
    if (dirname(dir) === dir) return { dir: resolve(cwd), holdsProjectFolder: false };
  }
}
