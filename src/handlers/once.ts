import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../json/canonicalHash.js";
import { SESSIONS_REMEMBERED, sessionMemory } from "../core/recentMap.js";

/**
 * Which `once: true` hooks already ran in which session. `claim` is asked once per selection: true the first time
 * for a session and hook (the hook runs, and counts as run whatever its result), false after.
 */
export interface OnceMemory {
  claim(sessionId: string, hookKey: string): boolean;
}

/**
 * Memory of one bus, one replay or one process: what a `qhooks run` without a log has. A long-lived one keeps the
 * sessions last active (core/recentMap.ts SESSIONS_REMEMBERED), so that it does not grow with every session it saw.
 */
export function memoryOnce(maxSessions = SESSIONS_REMEMBERED): OnceMemory {
  const claimed = sessionMemory(() => new Set<string>(), maxSessions);
  return {
    claim(sessionId, hookKey) {
      const hooks = claimed(sessionId);
      if (hooks.has(hookKey)) return false;
      hooks.add(hookKey);
      return true;
    },
  };
}

/**
 * Memory shared by every `qhooks run` of a machine: one empty marker file per session and hook in `dir`, created
 * exclusively, so that two processes judging the same session's events at once still run the hook once. A marker
 * that cannot be written (a read-only directory) lets the hook run: once is a convenience, not a guard.
 */
export function fileOnce(dir: string): OnceMemory {
  let made = false;
  return {
    claim(sessionId, hookKey) {
      const file = join(dir, sha256Hex(`${sessionId}\0${hookKey}`).slice(0, 40));
      try {
        if (!made) mkdirSync(dir, { recursive: true, mode: 0o700 });
        made = true;
        closeSync(openSync(file, "wx", 0o600));
        return true;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code !== "EEXIST";
      }
    },
  };
}
