import { statSync } from "node:fs";

/**
 * Whether a path names a directory now: a project directory an event or a command names may be gone, unreadable, or a
 * file. Never throws (a path removed between two checks, or behind a folder the user cannot enter, is simply not one).
 */
export function isDirectory(path: string): boolean {
  if (path === "") return false;
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}
