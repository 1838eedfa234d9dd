import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readSync, rmdirSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { MAX_PINNED_FILE_BYTES } from "./fileDigest.js";
import type { PinnedSite } from "./pinHook.js";
import { shellWord } from "../text/shellWord.js";

/** A trusted command made to run the bytes that were checked, or why it must not run. */
export type VerifiedRun =
  | {
      readonly ok: true;
      /** The command, each verified site rewritten to read its script from descriptor 3, 4, ... */
      readonly command: string;
      /** Descriptors of private, unlinked copies, to be given to the hook as 3, 4, ...; closed by `release`. */
      readonly fds: readonly number[];
      readonly release: () => void;
    }
  | { readonly ok: false; readonly message: string };

const SHELLS = /^(sh|bash|dash|zsh|ksh|mksh)$/;

/**
 * Closes the window between trust's check and the shell's start (issue 21, item 14): each script the command runs
 * directly is read once, here, right before the spawn; its bytes are hashed and compared with the pin, copied to a
 * private file that is unlinked at once, and the command runs that copy through `/dev/fd/N`. A script swapped or
 * edited in between is either caught here (the hook does not run) or never read again.
 *
 * A shell script keeps its `$0`: `./x.sh a` becomes `'/bin/bash' -c '. /dev/fd/3' ./x.sh a`, where the original
 * word is still the `-c` name, expanded by the shell as before, so `dirname "$0"` finds its siblings. Scripts of
 * other languages (`#!/usr/bin/env python3`) are verified here but still opened by path: their interpreter takes
 * the script's path from the path it opens (`__file__`), which a descriptor would change (see docs/trust.md).
 */
export function verifiedRun(command: string, sites: readonly PinnedSite[], defaultShell: string): VerifiedRun {
  const fds: number[] = [];
  const release = () => {
    for (const fd of fds.splice(0)) closeSync(fd);
  };
  const edits: { start: number; end: number; text: string }[] = [];
  try {
    for (const site of sites) {
      const read = readScript(site.path);
      if (typeof read === "string") throw new Refused(`${site.path} ${read}`);
      const { bytes, executable } = read;
      if (createHash("sha256").update(bytes).digest("hex") !== site.sha256) throw new Refused(`${site.path} changed after trust checked it`);
      // A program that is not executable fails as it did (126), rather than being run by a shell it never named.
      const runner = site.kind === "shell-script" ? [] : executable ? shellOf(bytes, defaultShell) : null;
      if (runner === null) continue; // verified, opened by path (another language)
      const fd = privateCopy(bytes);
      fds.push(fd);
      const word = command.slice(site.start, site.end);
      edits.push({ start: site.start, end: site.end, text: [...runner.map(shellWord), "-c", shellWord(`. /dev/fd/${2 + fds.length}`), word].join(" ") });
    }
  } catch (e) {
    release();
    if (e instanceof Refused) return { ok: false, message: `not run: ${e.message} (a file it runs must be the one trusted)` };
    return { ok: false, message: `not run: its scripts could not be verified (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
  }
  let rewritten = command;
  for (const edit of edits.sort((a, b) => b.start - a.start)) rewritten = rewritten.slice(0, edit.start) + edit.text + rewritten.slice(edit.end);
  return { ok: true, command: rewritten, fds, release };
}

class Refused extends Error {}

/** The script's bytes, read once without blocking and within the pin's bound; a string says why not. */
function readScript(path: string): { readonly bytes: Buffer; readonly executable: boolean } | string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    return `cannot be read now (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return "is no longer a regular file";
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_PINNED_FILE_BYTES) return "grew past the size trust pins";
      chunks.push(chunk.subarray(0, n));
    }
    return { bytes: Buffer.concat(chunks), executable: (st.mode & 0o111) !== 0 };
  } finally {
    closeSync(fd);
  }
}

/**
 * What runs a program script when it is a shell's: its `#!` line's interpreter and argument (`/usr/bin/env bash`
 * too), or, without a `#!` line, the shell that runs the command (the kernel refuses such a file, and the shell
 * then reads it itself). null for another language.
 */
function shellOf(bytes: Buffer, defaultShell: string): string[] | null {
  if (bytes[0] !== 0x23 || bytes[1] !== 0x21) return [defaultShell];
  const end = bytes.indexOf(0x0a);
  const line = bytes
    .subarray(2, end === -1 ? Math.min(bytes.length, 256) : Math.min(end, 256))
    .toString("utf8")
    .trim();
  const space = line.search(/[ \t]/);
  const interpreter = space === -1 ? line : line.slice(0, space);
  const arg = space === -1 ? "" : line.slice(space).trim();
  if (SHELLS.test(basename(interpreter))) return arg === "" ? [interpreter] : [interpreter, arg];
  if (basename(interpreter) === "env" && SHELLS.test(arg)) return [interpreter, arg];
  return null;
}

/** A copy no one else can reach: written in a fresh 0700 folder, opened, then unlinked with its folder. */
function privateCopy(bytes: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), "qhooks-run-"));
  const file = join(dir, "script");
  try {
    writeFileSync(file, bytes, { mode: 0o400, flag: "wx" });
    return openSync(file, constants.O_RDONLY);
  } finally {
    try {
      unlinkSync(file);
    } catch {
      // not written
    }
    rmdirSync(dir);
  }
}
