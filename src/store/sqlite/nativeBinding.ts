import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

let addon: object | null | undefined;
let addonPath: string | null | undefined;

/** Where an installed better-sqlite3 keeps its native addon; undefined when it is not there. */
export function betterSqliteAddonPath(): string | undefined {
  if (addonPath === undefined) {
    addonPath = null;
    try {
      const file = fileURLToPath(new URL("../build/Release/better_sqlite3.node", import.meta.resolve("better-sqlite3")));
      if (existsSync(file)) addonPath = file;
    } catch {
      // better-sqlite3's own lookup applies.
    }
  }
  return addonPath ?? undefined;
}

/**
 * better-sqlite3's native addon, loaded directly. By default better-sqlite3 finds it through the `bindings`
 * package, which walks the file system and inspects stack traces: 10 to 20 ms at every `qhooks run`, more than the
 * whole append. Returns undefined (better-sqlite3's own lookup then applies) when the addon is not where an
 * installed better-sqlite3 puts it.
 */
export function betterSqliteAddon(): object | undefined {
  if (addon !== undefined) return addon ?? undefined;
  addon = null;
  try {
    const file = betterSqliteAddonPath();
    if (file !== undefined) {
      const module = { exports: {} };
      process.dlopen(module, file);
      addon = module.exports;
    }
  } catch {
    // Fall back to better-sqlite3's own lookup.
  }
  return addon ?? undefined;
}
