import type { DoctorRule } from "../rule.js";

/** `qhooks run`, `npx qhooks run`, `node …/qhooks.cjs --dialect claude run`: within one simple command. */
const RUNS_QHOOKS = /(^|[\s/"'])qhooks(\.cjs)?["']?\s(.*\s)?run(\s|$)/;

export const hookCallsQhooks: DoctorRule = {
  id: "hook-calls-qhooks",
  level: "error",
  summary: "a hook in a file qhooks reads calls `qhooks run`: qhooks would run itself (refused at run time as recursion)",
  fix: "keep the `qhooks run` entry only where the host reads it and qhooks does not (qhooks install puts it there); remove it here",
  *check(context) {
    for (const hook of context.commandHooks) {
      if (!hook.command.split(/[|;&\n]/).some((piece) => RUNS_QHOOKS.test(piece))) continue;
      yield {
        hook,
        subPath: "command",
        message: `this ${hook.event} hook runs qhooks run, and qhooks reads this file (${hook.level} level): it would run itself`,
      };
    }
  },
};
