import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import type { SettingsSource } from "./settingsSources.js";

/**
 * Largest settings file qhooks reads, in bytes. Real settings are a few kilobytes; a file past this is skipped with
 * one warning (its neighbours still apply), so that no file can make loading slow or large enough to lose every
 * level's guards.
 */
export const MAX_SETTINGS_BYTES = 1024 * 1024;

/** What reading one settings file gave: its text, nothing (missing), or why it could not be read. */
export type SettingsRead =
  | { readonly state: "loaded"; readonly text: string; readonly worldWritable: boolean; readonly replaceable?: boolean }
  | { readonly state: "missing" }
  /** `why`: what the warning says after the file's name, e.g. `cannot be read (EACCES)`. */
  | { readonly state: "unreadable"; readonly why: string };

/** How much is read at a time: files are small, and a file that grows while it is read stops at the limit. */
const CHUNK_BYTES = 64 * 1024;

/** What reading a file that must be a regular file of bounded size gave. */
export type RegularFileRead =
  /** `cut`: the file held more than `maxBytes` and `bytes` are its first `maxBytes` (only with `overflow: "cut"`). */
  | { readonly state: "read"; readonly bytes: Buffer; readonly mode: number; readonly cut?: boolean }
  | { readonly state: "missing" }
  /** `kind`: "a FIFO", "a directory", "a device", "a socket"... */
  | { readonly state: "not-regular"; readonly kind: string }
  /** `size`: what stat said, or null when the file grew past the limit while it was read. */
  | { readonly state: "too-large"; readonly size: number | null }
  | { readonly state: "error"; readonly code: string };

/**
 * Reads a file only if it is a regular file of at most `maxBytes`; never blocks and never reads without bound. A
 * repository can carry a symlink to /dev/zero, /dev/stdin or a FIFO through git: what the path is is checked before
 * it is opened (a FIFO's open would block, a device's may act), the open is non-blocking, and what was opened is
 * checked again (the path may have been replaced in between). Symlinks to regular files are followed.
 *
 * `overflow`: what a file past `maxBytes` gives: "refuse" (too-large), or "cut" (its first `maxBytes`, marked `cut`),
 * for files whose beginning is still worth reading, such as $CLAUDE_ENV_FILE.
 */
export function readRegularFile(path: string, maxBytes: number, overflow: "refuse" | "cut" = "refuse"): RegularFileRead {
  let before: Stats;
  try {
    before = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { state: "missing" };
    return { state: "error", code: code ?? String(e) };
  }
  if (!before.isFile()) return { state: "not-regular", kind: kindOf(before) };
  if (before.size > maxBytes && overflow === "refuse") return { state: "too-large", size: before.size };

  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? { state: "missing" } : { state: "error", code: code ?? String(e) };
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return { state: "not-regular", kind: kindOf(opened) };
    const bytes = readBounded(fd, maxBytes, overflow === "cut");
    if (bytes === null) return { state: "too-large", size: opened.size > maxBytes ? opened.size : null };
    if (bytes.length > maxBytes) return { state: "read", bytes: bytes.subarray(0, maxBytes), mode: opened.mode, cut: true };
    return { state: "read", bytes, mode: opened.mode };
  } catch (e) {
    return { state: "error", code: (e as NodeJS.ErrnoException).code ?? String(e) };
  } finally {
    closeSync(fd);
  }
}

/** Reads one settings file: a regular file of at most MAX_SETTINGS_BYTES, or why not, as its warning says it. */
export function readSettingsSource(source: SettingsSource): SettingsRead {
  const read = readRegularFile(source.path, MAX_SETTINGS_BYTES);
  switch (read.state) {
    case "missing":
      return read;
    case "read":
      // Hooks run commands: a settings file that anyone can edit hands out code execution.
      return { state: "loaded", text: read.bytes.toString("utf8"), worldWritable: (read.mode & 0o002) !== 0, replaceable: replaceableDirectory(source.path) };
    case "not-regular":
      return unreadable(read.kind === "a directory" ? "cannot be read (is a directory)" : `is ${read.kind}, not a regular file`);
    case "too-large":
      return unreadable(
        read.size === null
          ? `is more than the ${MAX_SETTINGS_BYTES} bytes a settings file may have`
          : `is ${read.size} bytes, more than the ${MAX_SETTINGS_BYTES} a settings file may have`,
      );
    case "error":
      return unreadable(`cannot be read (${read.code === "ELOOP" ? "a loop of symbolic links" : read.code})`);
  }
}

/**
 * The file's bytes, or null when it holds more than `maxBytes` (it may have grown since its stat). With `keepPrefix`,
 * a longer file gives its first bytes instead, up to one chunk past `maxBytes` (the caller cuts them at the limit).
 */
function readBounded(fd: number, maxBytes: number, keepPrefix = false): Buffer | null {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const n = readSync(fd, chunk, 0, CHUNK_BYTES, null);
    if (n === 0) return Buffer.concat(chunks, total);
    total += n;
    if (total > maxBytes && !keepPrefix) return null;
    chunks.push(chunk.subarray(0, n));
    if (total > maxBytes) return Buffer.concat(chunks, total);
  }
}

/**
 * A file in a directory that anyone can write to can be replaced by anyone, unless the sticky bit (as on /tmp)
 * keeps others from removing or renaming what is not theirs.
 */
function replaceableDirectory(path: string): boolean {
  try {
    const dir = statSync(dirname(path)).mode;
    return (dir & 0o002) !== 0 && (dir & 0o1000) === 0;
  } catch {
    return false;
  }
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "an unknown kind of file";
}

const unreadable = (why: string): SettingsRead => ({ state: "unreadable", why });
