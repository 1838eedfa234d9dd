import { attestLoad } from "../../engine/loadAttestation.js";
import type { DoctorRule } from "../rule.js";

export const hooksNotLoaded: DoctorRule = {
  id: "hooks-not-loaded",
  level: "error",
  summary: "hooks are configured on disk, and not one of them is loaded (every entry skipped, or every file unreadable): no hook runs at all",
  fix: "fix the findings above; qhooks hooks lists each skipped hook with why",
  *check(context) {
    const attestation = attestLoad(context.snapshot, context.trust);
    const unread = attestation.unreadFiles.length;
    if (attestation.loaded > 0 || (attestation.configured === 0 && unread === 0)) return;
    // Switched off on purpose (disableAllHooks): said by qhooks hooks, not an error.
    if (unread === 0 && attestation.skipped.every((s) => s.why.startsWith("switched off: "))) return;
    const what =
      attestation.configured > 0
        ? `${attestation.configured} hook${attestation.configured === 1 ? "" : "s"} configured on disk, none loaded`
        : `no hook loaded: ${unread} settings file${unread === 1 ? "" : "s"} could not be read`;
    yield { place: { settingsLevel: null, file: null, path: null }, message: what };
  },
};
