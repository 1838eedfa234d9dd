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

/**
 * Reads one settings file, if it is a regular file of at most MAX_SETTINGS_BYTES; never blocks and never reads
 * without bound. A repository can carry a symlink to /dev/zero, /dev/stdin or a FIFO through git: what the path is
 * is checked before it is opened (a FIFO's open would block, a device's may act), the open is non-blocking, and
 * what was opened is checked again (the path may have been replaced in between). Symlinks to regular files are
 * followed: people keep their dotfiles that way.
 */
export function readSettingsSource(source: SettingsSource): SettingsRead {
  let before: Stats;
  try {
    before = statSync(source.path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { state: "missing" };
    return unreadable(`cannot be read (${code === "ELOOP" ? "a loop of symbolic links" : (code ?? String(e))})`);
  }
  if (!before.isFile()) return unreadable(notRegular(before));
  if (before.size > MAX_SETTINGS_BYTES) return unreadable(tooLarge(before.size));

  let fd: number;
  try {
    fd = openSync(source.path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { state: "missing" };
    return unreadable(`cannot be read (${code ?? String(e)})`);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return unreadable(notRegular(opened));
    const read = readBounded(fd);
    if (read === null) return unreadable(opened.size > MAX_SETTINGS_BYTES ? tooLarge(opened.size) : `is more than the ${MAX_SETTINGS_BYTES} bytes a settings file may have`);
    // Hooks run commands: a settings file that anyone can edit hands out code execution.
    const worldWritable = (opened.mode & 0o002) !== 0;
    return { state: "loaded", text: read.toString("utf8"), worldWritable, replaceable: replaceableDirectory(source.path) };
  } catch (e) {
    return unreadable(`cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  } finally {
    closeSync(fd);
  }
}

/** The file's bytes, or null when it holds more than MAX_SETTINGS_BYTES (it may have grown since its stat). */
function readBounded(fd: number): Buffer | null {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const n = readSync(fd, chunk, 0, CHUNK_BYTES, null);
    if (n === 0) return Buffer.concat(chunks, total);
    total += n;
    if (total > MAX_SETTINGS_BYTES) return null;
    chunks.push(chunk.subarray(0, n));
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

function notRegular(stat: Stats): string {
  if (stat.isDirectory()) return "cannot be read (is a directory)";
  if (stat.isFIFO()) return "is a FIFO, not a regular file";
  if (stat.isSocket()) return "is a socket, not a regular file";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "is a device, not a regular file";
  return "is not a regular file";
}

const tooLarge = (size: number) => `is ${size} bytes, more than the ${MAX_SETTINGS_BYTES} a settings file may have`;

const unreadable = (why: string): SettingsRead => ({ state: "unreadable", why });
