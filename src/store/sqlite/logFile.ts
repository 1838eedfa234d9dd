import { chmodSync, closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, statSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { QhooksError } from "../../errors.js";

/**
 * The log path and the files SQLite keeps next to it are handled without following a symbolic link and without
 * touching a file that is not a log: `--db` may name anything, and as root a chmod through a link (or of
 * `/etc/hosts`) changes a file that is not qhooks'. What qhooks creates it creates private (0600, directories
 * 0700); an existing file keeps its mode until SQLite has opened it as a database (see makeLogPrivate).
 *
 * Nothing here opens an existing log or its companions: closing any descriptor of a file drops every POSIX lock
 * the process holds on it, SQLite's included (another connection of the same process, or this one's own -shm
 * locks), which corrupts the WAL index under concurrent writers. Existing files are looked at with lstat only.
 */

/** The files SQLite may create or open next to the log. */
export const COMPANION_SUFFIXES = ["-wal", "-shm", "-journal"] as const;

/**
 * Checks (and, unless `mustExist`, creates) the log file before SQLite opens it. Refuses with one clear line: a
 * symbolic link (dangling or not), a directory, anything but a regular file (a FIFO would block the open, a device
 * would be handed to SQLite), and companion files that are links or not regular files. A regular file that is not
 * a database is left to SQLite, which refuses it before writing anything.
 */
export function prepareLogFile(path: string, mustExist: boolean): void {
  let stat = lstatOrNull(path);
  if (stat === null) {
    if (mustExist) {
      throw new QhooksError("log", `no event log at ${path} yet (qhooks run and qhooks record create it; --db or $QHOOKS_DB choose another)`);
    }
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    if (createExclusively(path)) return refuseCompanions(path);
    // Another process created it first: it is an existing file now, checked as such.
    stat = lstatOrNull(path);
    if (stat === null) throw refusal(path, "it disappeared while it was being created");
  }
  if (stat.isSymbolicLink()) {
    const dangling = statOrNull(path) === null ? " to nothing" : "";
    throw refusal(path, `it is a symbolic link${dangling} (qhooks never opens or creates its log through a link: name the file itself)`);
  }
  if (stat.isDirectory()) throw refusal(path, "the path is a directory, not a file");
  if (!stat.isFile()) throw refusal(path, `it is ${kindOf(stat)}, not a regular file`);
  refuseCompanions(path);
}

/**
 * Makes an existing log private (0600) once SQLite has opened it as a database, and its companions, which SQLite
 * created with the log's mode: only regular files of the current user, looked at without following a link. A file
 * of another user is left as it is (a log shared by its owner's choice). chmod goes by path (Linux has no lchmod,
 * and a descriptor cannot be used, see above): the window between the lstat and the chmod is open only to whoever
 * can write to the directory, which logDirectoryWarnings reports.
 */
export function makeLogPrivate(path: string): void {
  const uid = process.geteuid?.();
  for (const file of [path, ...COMPANION_SUFFIXES.map((s) => path + s)]) {
    const stat = lstatOrNull(file);
    if (stat === null || !stat.isFile() || stat.uid !== uid || (stat.mode & 0o077) === 0) continue;
    try {
      chmodSync(file, 0o600);
    } catch {
      // Gone or not ours after all: the log works as before.
    }
  }
}

/**
 * Warnings about the directory that holds the log: whoever can write to it can replace or remove the log (the hash
 * chain does not show a whole new file), or plant links where SQLite will create its companions. Group and world
 * write without the sticky bit, and an owner who is neither the current user nor root.
 */
export function logDirectoryWarnings(path: string): string[] {
  const dir = dirname(path);
  const stat = statOrNull(dir);
  if (stat === null) return [];
  const warnings: string[] = [];
  const uid = process.geteuid?.();
  if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) {
    warnings.push(`the log's directory ${dir} belongs to another user (uid ${stat.uid}), who can replace or remove the log`);
  }
  const writable = stat.mode & 0o022;
  if (writable !== 0 && (stat.mode & 0o1000) === 0) {
    const who = writable & 0o002 ? "every user" : "its group";
    warnings.push(`the log's directory ${dir} is writable by ${who}, who can replace or remove the log`);
  }
  return warnings;
}

/** Creates the file 0600, only if nothing is there (not even a dangling link); false when something was. */
function createExclusively(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    // The umask may have taken bits away; qhooks created this file, so it sets its mode.
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
  return true;
}

function refuseCompanions(path: string): void {
  for (const suffix of COMPANION_SUFFIXES) {
    const stat = lstatOrNull(path + suffix);
    if (stat === null || stat.isFile()) continue;
    throw refusal(path, `${path}${suffix} is ${stat.isSymbolicLink() ? "a symbolic link" : kindOf(stat)}, where SQLite keeps a file of its own`);
  }
}

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  if (stat.isDirectory()) return "a directory";
  if (stat.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

const refusal = (path: string, why: string) => new QhooksError("log", `cannot open the event log ${path}: ${why}`);

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
