import { untrustedHooks } from "../../engine/loadAttestation.js";
import type { DoctorRule } from "../rule.js";

export const hookUntrusted: DoctorRule = {
  id: "hook-untrusted",
  level: "error",
  summary: "under requireTrust, a project, local or plugin hook that is not trusted yet, or changed since it was trusted: it is skipped at every run",
  fix: "review the hook and the files it runs, then run qhooks trust",
  *check(context) {
    if (context.trust === null) return;
    // As at run time: an event's hooks with the same command run once, without trust when one of them is the user's own.
    for (const [hook, why] of untrustedHooks(context.snapshot, context.trust)) yield { hook, message: `skipped while trust is required: ${why}` };
  },
};
