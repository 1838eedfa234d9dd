import type { DoctorRule } from "../rule.js";

export const hookUntrusted: DoctorRule = {
  id: "hook-untrusted",
  level: "error",
  summary: "under requireTrust, a project, local or plugin hook that is not trusted yet, or changed since it was trusted: it is skipped at every run",
  fix: "review the hook and the files it runs, then run qhooks trust",
  *check(context) {
    const trust = context.trust;
    if (trust === null) return;
    for (const hook of context.commandHooks) {
      const verdict = trust.verdict(hook.command, [hook]);
      if (!verdict.runs) yield { hook, message: `skipped while trust is required: ${verdict.message}` };
    }
  },
};
