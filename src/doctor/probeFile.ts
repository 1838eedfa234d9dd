import { accessSync, closeSync, constants, lstatSync, openSync, readlinkSync, readSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** What doctor learned about a file a hook runs. */
export type FileProbe =
  | { readonly state: "ok"; readonly shebang: boolean; readonly binary: boolean; readonly executable: boolean; readonly head: string }
  | { readonly state: "missing" }
  | { readonly state: "dangling"; readonly target: string }
  | { readonly state: "directory" }
  | { readonly state: "not-regular" }
  /** `executable`: null when not even the file's kind could be seen (a folder on the way this user may not enter). */
  | { readonly state: "unreadable"; readonly executable: boolean | null; readonly code: string };

/** Most of a script doctor reads for its heuristics: guards are short, and a huge file must not cost seconds. */
export const MAX_SCRIPT_BYTES = 64 * 1024;

/**
 * Looks at a file without running it: what it is (a dangling link, a directory, a FIFO: never opened), whether it
 * may be executed, and its first MAX_SCRIPT_BYTES (opened non-blocking, so a file swapped for a FIFO cannot hang).
 */
export function probeFile(path: string): FileProbe {
  let link;
  try {
    link = lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "error";
    // A folder on the way that this user may not enter is not a missing file.
    return code === "ENOENT" || code === "ENOTDIR" ? { state: "missing" } : { state: "unreadable", executable: null, code };
  }
  let stats = link;
  if (link.isSymbolicLink()) {
    try {
      stats = statSync(path);
    } catch {
      let target = "?";
      try {
        target = readlinkSync(path);
      } catch {}
      return { state: "dangling", target };
    }
  }
  if (stats.isDirectory()) return { state: "directory" };
  if (!stats.isFile()) return { state: "not-regular" };
  const executable = can(path, constants.X_OK);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    return { state: "unreadable", executable, code: (e as NodeJS.ErrnoException).code ?? "error" };
  }
  try {
    const buffer = Buffer.alloc(Math.min(MAX_SCRIPT_BYTES, Math.max(stats.size, 4)));
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, n);
    const binary = bytes.subarray(0, 4).equals(ELF) || MACH_O.some((m) => bytes.subarray(0, 4).equals(m));
    return { state: "ok", shebang: bytes.subarray(0, 2).toString("latin1") === "#!", binary, executable, head: binary ? "" : bytes.toString("utf8") };
  } catch (e) {
    return { state: "unreadable", executable, code: (e as NodeJS.ErrnoException).code ?? "error" };
  } finally {
    closeSync(fd);
  }
}

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
const MACH_O = [Buffer.from([0xcf, 0xfa, 0xed, 0xfe]), Buffer.from([0xce, 0xfa, 0xed, 0xfe]), Buffer.from([0xca, 0xfe, 0xba, 0xbe])];

function can(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/** The first executable regular file named `name` on PATH; null when none. */
export function onPath(name: string, pathVariable: string | undefined): string | null {
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      if (statSync(candidate).isFile() && can(candidate, constants.X_OK)) return candidate;
    } catch {}
  }
  return null;
}
