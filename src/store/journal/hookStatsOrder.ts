/** Byte order of two texts, null first: the order SQLite gives TEXT and PostgreSQL bytea. */
const byBytes = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

/**
 * The order of `qhooks stats`'s per-hook rows on every backend: by name, then level (a user's and a project's hook
 * of one name are two rows; runs logged before the level was kept have none, and come first).
 */
export const byHookNameThenLevel = (
  a: { readonly name: string; readonly level: string | null },
  b: { readonly name: string; readonly level: string | null },
): number => byBytes(a.name, b.name) || byBytes(a.level, b.level);
