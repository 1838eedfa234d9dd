import { lstatSync } from "node:fs";

/**
 * A value computed from files, kept while the files look the same from outside (inode, size, mtime, ctime, mode,
 * owner): a long-lived engine then pays one lstat per file per use instead of a read and a parse. The kernel sets
 * ctime on every write, rename and chmod, and no one can set it back; but it ticks coarsely, so a value read from
 * a file changed less than a second before is not kept (as git treats a "racily clean" file): a second write in
 * the same tick would look alike.
 */
export class StampCache<T> {
  private kept: { readonly stamp: string; readonly value: T } | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  get(paths: readonly string[], load: () => T): T {
    const stamps = paths.map(stampOf);
    const stamp = stamps.map((s) => s.text).join("|");
    if (this.kept?.stamp === stamp) return this.kept.value;
    const started = this.now();
    const value = load();
    this.kept = stamps.every((s) => s.changedMs < started - 1000) ? { stamp, value } : null;
    return value;
  }
}

function stampOf(path: string): { text: string; changedMs: number } {
  try {
    const s = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    if (s === undefined) return { text: "missing", changedMs: 0 };
    return { text: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.mode}:${s.uid}`, changedMs: Number(s.ctimeMs) };
  } catch (e) {
    return { text: `error:${(e as NodeJS.ErrnoException).code ?? String(e)}`, changedMs: Infinity };
  }
}
