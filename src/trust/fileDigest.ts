import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type BigIntStats } from "node:fs";

/** Largest file a hook may name and still be pinned: hashing it runs on every call of the hook. */
export const MAX_PINNED_FILE_BYTES = 8 * 1024 * 1024;

/** What a named file is, for pinning. */
export type FileDigest =
  | { readonly state: "file"; readonly sha256: string }
  /** Nothing there (yet): not part of the pin, so a file that appears later changes it. */
  | { readonly state: "absent" }
  /** Something there that cannot be pinned: a FIFO, a device, a file too large or unreadable. */
  | { readonly state: "unpinnable"; readonly why: string };

/**
 * Hashes of files, remembered by what the file looks like from outside (device, inode, size, mtime, ctime): in a
 * long-lived engine a script is then read again only when it changed. The kernel sets ctime on every write, rename
 * and chmod, and no one can set it back; but it ticks coarsely, so a file changed within a second before it was
 * hashed is not remembered (as git treats a "racily clean" file): a second write in the same tick would look alike.
 */
export class FileDigests {
  private readonly known = new Map<string, { stamp: string; digest: FileDigest }>();

  constructor(private readonly now: () => number = Date.now) {}

  of(path: string): FileDigest {
    let st: BigIntStats | undefined;
    try {
      st = statSync(path, { bigint: true, throwIfNoEntry: false });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A path through a regular file (`x.sh/y`) or too long names nothing.
      if (code === "ENOTDIR" || code === "ENAMETOOLONG" || code === "ELOOP") return { state: "absent" };
      return { state: "unpinnable", why: `cannot be examined (${code ?? String(e)})` };
    }
    if (st === undefined || st.isDirectory()) return { state: "absent" };
    if (!st.isFile()) return { state: "unpinnable", why: `is ${kindOf(st)}, not a regular file` };
    if (st.size > MAX_PINNED_FILE_BYTES) return { state: "unpinnable", why: `is larger than ${MAX_PINNED_FILE_BYTES / 1024 / 1024} MiB` };
    const stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    const seen = this.known.get(path);
    if (seen?.stamp === stamp) return seen.digest;
    const started = this.now();
    const digest = hashRegularFile(path, st);
    if (Number(st.ctimeMs) < started - 1000) this.known.set(path, { stamp, digest });
    else this.known.delete(path);
    return digest;
  }
}

/** Reads a file that a stat found regular, never blocking (a FIFO swapped in meanwhile) and never past the bound. */
function hashRegularFile(path: string, expected: BigIntStats): FileDigest {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? { state: "absent" } : { state: "unpinnable", why: `cannot be read (${code ?? String(e)})` };
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile() || st.ino !== expected.ino || st.dev !== expected.dev) return { state: "unpinnable", why: "changed while it was read" };
    const hash = createHash("sha256");
    const buffer = Buffer.allocUnsafe(64 * 1024);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_PINNED_FILE_BYTES) return { state: "unpinnable", why: `is larger than ${MAX_PINNED_FILE_BYTES / 1024 / 1024} MiB` };
      hash.update(buffer.subarray(0, n));
    }
    return { state: "file", sha256: hash.digest("hex") };
  } catch (e) {
    return { state: "unpinnable", why: `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
  } finally {
    closeSync(fd);
  }
}

function kindOf(st: BigIntStats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSocket()) return "a socket";
  return "not a file";
}
