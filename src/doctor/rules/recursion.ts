import { basename, isAbsolute, resolve } from "node:path";
import type { DeclaredHook } from "../../core/hookDescriptor.js";
import { DEFAULT_DIALECT, DIALECTS, type Dialect } from "../../hosts/hostDialect.js";
import { hostDialect } from "../../hosts/hosts.js";
import { simpleCommands } from "../../trust/shellWords.js";
import type { DoctorContext, DoctorRule } from "../rule.js";

/** What a `qhooks … run …` in a hook's command would read: its `--settings` files, else a dialect's levels. */
interface NestedRun {
  readonly settings: readonly string[];
  readonly dialect: Dialect | null;
}

/** The `qhooks run` calls of a command (`qhooks`, `npx qhooks`, `node …/qhooks.cjs`), with the files they name. */
function nestedRuns(hook: DeclaredHook, context: DoctorContext): NestedRun[] {
  const vars = { CLAUDE_PROJECT_DIR: context.projectDir, QODERCN_PROJECT_DIR: context.projectDir, HOME: context.homeDir };
  const runs: NestedRun[] = [];
  for (const simple of simpleCommands(hook.command, { vars, home: context.homeDir }).slice(0, 16)) {
    const words = simple.words.map((w) => w.text);
    const at = words.findIndex((w) => w !== null && /^qhooks(\.cjs)?$/.test(basename(w)));
    if (at < 0 || !words.slice(at + 1).includes("run")) continue;
    const settings: string[] = [];
    let dialect: Dialect | null = null;
    for (let k = at + 1; k < words.length; k++) {
      const w = words[k];
      const value = w?.includes("=") ? w.slice(w.indexOf("=") + 1) : (words[k + 1] ?? null);
      if (w === "--settings" || w?.startsWith("--settings=")) {
        // A file only the shell knows: counted as another file (no guess that it is this one).
        settings.push(value === null ? "\0unknown" : isAbsolute(value) ? value : resolve(context.projectDir, value));
      } else if ((w === "--dialect" || w?.startsWith("--dialect=")) && value !== null && (DIALECTS as readonly string[]).includes(value)) {
        dialect = value as Dialect;
      }
    }
    runs.push({ settings, dialect });
  }
  return runs;
}

export const hookCallsQhooks: DoctorRule = {
  id: "hook-calls-qhooks",
  level: "error",
  summary: "a hook calls `qhooks run` that would read the very file that declares it: qhooks would run itself (refused at run time as recursion)",
  fix: "give that qhooks run its own --settings file (one that does not declare it), or remove the entry; qhooks install writes entries that cannot loop",
  *check(context) {
    for (const hook of context.commandHooks) {
      const file = context.sourcePathOf(hook);
      for (const run of nestedRuns(hook, context)) {
        const fromEnv = context.env.QHOOKS_DIALECT?.trim();
        const dialect: Dialect = run.dialect ?? ((DIALECTS as readonly (string | undefined)[]).includes(fromEnv) ? (fromEnv as Dialect) : DEFAULT_DIALECT);
        const reads =
          run.settings.length > 0
            ? run.settings.includes(file ?? "\0none")
            : hook.plugin !== null
              ? hostDialect(dialect).loadsEnabledPlugins
              : hostDialect(dialect)
                  .settingsLevels(context.homeDir, context.projectDir, context.env)
                  .some((l) => l.path === file);
        if (!reads) continue;
        yield {
          hook,
          subPath: "command",
          message: `this ${hook.event} hook runs qhooks run, which reads this file (${hook.level} level): it would run itself`,
        };
        break;
      }
    }
  },
};
