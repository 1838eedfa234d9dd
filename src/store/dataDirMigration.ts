import { existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { legacyDataDir, localDataDir } from "../core/dataDir.js";

/** What settling the data folder did: moved the old one into place, found nothing to do, or found both. */
export type DataDirSettled =
  | { readonly kind: "fresh" | "current" | "moved" }
  /** The old folder could not be moved (another file system, no permission...): it stays, unused; `warning` says so. */
  | { readonly kind: "stuck" | "both"; readonly warning: string };

const HELD = ["events.db", "trust.json"] as const;

/**
 * Makes `localDataDir` the folder in use: an old `~/.qoder-cn/qhooks` alone is renamed to `~/.qhooks` (one rename,
 * so the log, its WAL, the trust store and the cursors move together and nothing is copied or lost). When both
 * exist, the new one is used and the old one is never touched; if the old one still holds a log or a trust store,
 * `warning` is one line saying so, so a log is never forked silently.
 */
export function settleDataDir(homeDir: string): DataDirSettled {
  const current = localDataDir(homeDir);
  const legacy = legacyDataDir(homeDir);
  const hasLegacy = existsSync(legacy);
  if (existsSync(current)) {
    if (!hasLegacy) return { kind: "current" };
    const held = HELD.filter((name) => existsSync(join(legacy, name)));
    if (held.length === 0) return { kind: "current" };
    return {
      kind: "both",
      warning: `${legacy} still holds ${held.join(" and ")} from an older qhooks; qhooks uses ${current} only: copy what you need from the old folder, then delete it`,
    };
  }
  if (!hasLegacy) return { kind: "fresh" };
  try {
    mkdirSync(homeDir, { recursive: true });
    renameSync(legacy, current);
    return { kind: "moved" };
  } catch (error) {
    // Another process moved it first: the new folder is in place, nothing lost.
    if (existsSync(current) && !existsSync(legacy)) return { kind: "moved" };
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return {
      kind: "stuck",
      warning: `could not move ${legacy} to ${current} (${code}); qhooks uses ${current}: move the old folder by hand to keep its log and trusted hooks`,
    };
  }
}

/** Warnings said in this process: `qhooks run` settles the folder twice (the CLI, then createHookBus). */
const said = new Set<string>();

/**
 * Settles the data folder (settleDataDir) and returns its warning the first time this process meets it, else null:
 * one `qhooks run` says "both folders" once, though the CLI and the hook bus each settle the folder.
 */
export function settleDataDirOnce(homeDir: string): string | null {
  const settled = settleDataDir(homeDir);
  if (!("warning" in settled) || said.has(settled.warning)) return null;
  said.add(settled.warning);
  return settled.warning;
}
