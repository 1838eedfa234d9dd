import { statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The paths (or their folders) that another account could not reach: a managed entry runs in every user's session,
 * so node and qhooks' script must be readable, and every folder above them searchable, by all.
 */
export function unsharedPaths(paths: readonly string[]): string[] {
  const blocked: string[] = [];
  for (const path of paths) {
    try {
      if ((statSync(path).mode & 0o005) !== 0o005) {
        blocked.push(path);
        continue;
      }
      for (let d = dirname(path); d !== dirname(d); d = dirname(d)) {
        if ((statSync(d).mode & 0o001) === 0) {
          blocked.push(d);
          break;
        }
      }
    } catch {
      blocked.push(path);
    }
  }
  return blocked;
}
