import { attestLoad, noneLoaded } from "../../engine/loadAttestation.js";
import type { DoctorRule } from "../rule.js";

export const hooksNotLoaded: DoctorRule = {
  id: "hooks-not-loaded",
  level: "error",
  summary: "hooks are configured on disk, and not one of them is loaded (every entry skipped, or every file unreadable): no hook runs at all",
  fix: "fix the findings above; qhooks hooks lists each skipped hook with why",
  *check(context) {
    // Switched off on purpose (disableAllHooks, qhooks.disabled): said by qhooks hooks, not an error.
    const what = noneLoaded(attestLoad(context.snapshot, context.trust));
    if (what !== null) yield { place: { settingsLevel: null, file: null, path: null }, message: what };
  },
};
