import type { DeclaredHook } from "../../core/hookDescriptor.js";
import type { DoctorRule } from "../rule.js";

export const hookUntrusted: DoctorRule = {
  id: "hook-untrusted",
  level: "error",
  summary: "under requireTrust, a project, local or plugin hook that is not trusted yet, or changed since it was trusted: it is skipped at every run",
  fix: "review the hook and the files it runs, then run qhooks trust",
  *check(context) {
    const trust = context.trust;
    if (trust === null) return;
    // As at run time: an event's hooks with the same command run once, without trust when one of them is the user's own.
    const declared = new Map<string, DeclaredHook[]>();
    for (const hook of context.commandHooks) {
      const key = `${hook.event}\0${hook.command}`;
      const list = declared.get(key);
      if (list) list.push(hook);
      else declared.set(key, [hook]);
    }
    for (const hook of context.commandHooks) {
      const verdict = trust.verdict(hook.command, declared.get(`${hook.event}\0${hook.command}`)!);
      if (!verdict.runs) yield { hook, message: `skipped while trust is required: ${verdict.message}` };
    }
  },
};
