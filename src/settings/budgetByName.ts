import type { BudgetSettings } from "../schema/settings.js";

type HookLimits = NonNullable<BudgetSettings["hooks"]>[string];

/**
 * `qhooks.budget.hooks` by the names hooks have now: an entry written under an old name applies under the new one,
 * one written under a short name two hooks share applies to both. Two entries that reach one hook: the lower limit
 * of each kind, so that no entry loosens another.
 */
export function budgetByName(hooks: NonNullable<BudgetSettings["hooks"]>, named: (name: string) => readonly string[]): NonNullable<BudgetSettings["hooks"]> {
  const lower = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
  const out: Record<string, HookLimits> = {};
  for (const [name, limits] of Object.entries(hooks))
    for (const target of named(name)) {
      const had = out[target];
      if (had === undefined) out[target] = limits;
      else {
        const ms = lower(had.msPerTurn, limits.msPerTurn);
        const chars = lower(had.contextChars, limits.contextChars);
        out[target] = { ...(ms === undefined ? {} : { msPerTurn: ms }), ...(chars === undefined ? {} : { contextChars: chars }) };
      }
    }
  return out;
}
