import { splitWarnings, type SplitWarning } from "../../engine/readerWarnings.js";
import { projectEnvOverrides, readEnvBlocks } from "../../settings/projectEnv.js";
import type { DoctorRule } from "../rule.js";

/** The reader's warnings this rule reports (once, with its fix), not settings-warning. */
export const isGuardAttempt = (w: SplitWarning): boolean =>
  w.message.includes("would weaken your guard") || (w.place.path === "qhooks.disabled" && w.message.startsWith("read only from"));

export const guardWeakened: DoctorRule = {
  id: "guard-weakened",
  level: "warn",
  summary:
    "a lower-trust file (project, local, plugin, --settings inside the project) tries to weaken your guards: a weaker copy of your hook, qhooks.disabled, or a guarded QHOOKS_* variable in its env block; qhooks ignores it",
  fix: "remove it from that file; to switch a hook off or set the variable yourself, use your own settings",
  *check(context) {
    for (const w of splitWarnings(context.snapshot)) if (isGuardAttempt(w)) yield { place: w.place, message: w.message };
    // The env blocks as the files hold them: what a project would set whenever the host runs qhooks.
    const blocks = readEnvBlocks(context.homeDir, context.projectDir);
    const asSet: Record<string, string> = {};
    for (const b of blocks) for (const [k, v] of Object.entries(b.env)) if (!b.own && typeof v === "string") asSet[k] ??= v;
    for (const o of projectEnvOverrides(asSet, blocks)) {
      yield {
        place: { settingsLevel: "project", file: o.file, path: `env.${o.variable}` },
        message: `sets ${o.variable} for every hook the host runs, qhooks included: it can weaken your guards, so qhooks ignores it`,
      };
    }
  },
};
