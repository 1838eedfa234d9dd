import {
  accessSync,
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { QhooksError } from "../errors.js";
import { MAX_SETTINGS_BYTES, readRegularFile } from "../settings/readSettingsSource.js";

/** A settings file as install and uninstall find it: its real path, and its bytes (null: no such file). */
export interface TargetFile {
  readonly path: string;
  readonly bytes: Buffer | null;
}

export const sha256Of = (bytes: Buffer | null): string =>
  createHash("sha256")
    .update(bytes ?? Buffer.alloc(0))
    .digest("hex");

/** The file behind `path` (a symlink into a dotfiles repository is followed), read as qhooks reads settings. */
export function readTarget(path: string, shown: string): TargetFile {
  let real = path;
  try {
    real = realpathSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") throw new QhooksError("io", `cannot read ${shown}: ${code ?? String(e)}; nothing was changed`);
  }
  const read = readRegularFile(real, MAX_SETTINGS_BYTES);
  if (read.state === "read") return { path: real, bytes: read.bytes };
  if (read.state === "missing") return { path: real, bytes: null };
  if (read.state === "not-regular") throw new QhooksError("usage", `${shown} is not a regular file; nothing was changed`);
  if (read.state === "too-large") throw new QhooksError("usage", `${shown} is more than ${MAX_SETTINGS_BYTES} bytes; nothing was changed`);
  throw new QhooksError("io", `cannot read ${shown}: ${read.code}; nothing was changed`);
}

/** The folders `mkdir -p` of `dir` would create, outermost first. */
export function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    try {
      statSync(d);
      break;
    } catch {
      missing.unshift(d);
      if (dirname(d) === d) break;
    }
  }
  return missing;
}

/** Throws one line when the folder that would hold `path` (or its nearest existing parent) is not writable. */
export function requireWritable(path: string, hint: string): void {
  let d = dirname(path);
  while (missingDirs(d).length > 0) d = dirname(d);
  try {
    accessSync(d, constants.W_OK);
  } catch {
    throw new QhooksError("io", `${d} is not writable${hint}; nothing was changed`);
  }
}

/**
 * Replaces the file in one step (a temporary file beside it, renamed over it), keeping its mode, so that the host
 * reading its settings meanwhile sees the old file or the new one, never half of one; `null` removes it. A file that
 * changed since it was read is not touched.
 */
export function replaceFile(target: TargetFile, next: Buffer | null): void {
  const now = readRegularFile(target.path, MAX_SETTINGS_BYTES);
  const current = now.state === "read" ? now.bytes : now.state === "missing" ? null : undefined;
  if (current === undefined || sha256Of(current) !== sha256Of(target.bytes) || (current === null) !== (target.bytes === null))
    throw new QhooksError("io", `${target.path} changed while qhooks was editing it; nothing was changed, try again`);
  try {
    if (next === null) {
      if (current !== null) unlinkSync(target.path);
      return;
    }
    const dir = dirname(target.path);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const mode = current === null ? 0o644 : statSync(target.path).mode & 0o7777;
    const temp = join(dir, `.${basename(target.path)}.${process.pid}.qhooks-tmp`);
    try {
      const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        fchmodSync(fd, mode);
        writeSync(fd, next);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, target.path);
    } catch (e) {
      try {
        unlinkSync(temp);
      } catch {
        // not created
      }
      throw e;
    }
  } catch (e) {
    if (e instanceof QhooksError) throw e;
    throw new QhooksError("io", `cannot write ${target.path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}; nothing was changed`, { cause: e });
  }
}

/** Removes the folders install created, innermost first, as long as they are empty. */
export function removeEmptyDirs(outermostFirst: readonly string[]): void {
  for (const d of [...outermostFirst].reverse()) {
    try {
      rmdirSync(d);
    } catch {
      return; // not empty (someone put a file there), or gone: leave it and its parents
    }
  }
}
