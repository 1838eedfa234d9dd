import { randomBytes } from "node:crypto";
import { closeSync, constants, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Writes a file that holds what the log holds (a report), as private as the log: mode 0600, whatever the umask.
 * The text goes to a new file beside it (created exclusively, never through a link) that is then renamed over the
 * path: a symlink planted at the path is replaced, not followed, and a reader sees the old file or the new one.
 * Throws the system error (its code says what went wrong).
 */
export function writePrivateFile(path: string, text: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  try {
    // O_EXCL|O_NOFOLLOW: the temporary name cannot be a link someone placed there first; the mode is given at
    // creation, so the file is never readable by others, not even for a moment.
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}
