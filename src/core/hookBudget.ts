import { EVENT_TRAITS, type EventName } from "../schema/events.js";
import type { HookResult } from "../schema/outcome.js";
import type { BudgetSettings } from "../schema/settings.js";
import type { HookBudgetUsage } from "../schema/usage.js";
import { oneLineText } from "../text/oneLine.js";

/** One logged outcome, as much of it as the budget reads. */
export interface BudgetEvent {
  readonly event: EventName;
  readonly sessionId: string;
  readonly hooks: readonly HookResult[];
}

export type { HookBudgetUsage } from "../schema/usage.js";

/**
 * What a hook's budget is kept under: its level and its name. The user's `lint` and the project's `lint` are two
 * hooks, and the one that costs a turn is the one to name.
 */
export const budgetKey = (level: string, name: string): string => JSON.stringify([level, name]);

/** A limit of `qhooks.budget` that a hook crossed, with a kind (never told apart by text). */
export interface BudgetOverrun {
  readonly kind: "ms-per-turn" | "context-chars";
  readonly hook: string;
  /** The hook's level (`project`, `user`...): a name alone may be two hooks. */
  readonly level: string;
  readonly value: number;
  readonly limit: number;
}

/**
 * The characters of context one hook's run put before the model: its `additionalContext`, or its plain stdout on an
 * event whose stdout is context. A shadow hook's, a failed run's and an event that carries no context count 0.
 */
export function contextCharsOf(event: EventName, result: HookResult): number {
  const traits = EVENT_TRAITS[event];
  if (!traits.carriesContext || result.shadow === true || result.outcome !== "success") return 0;
  const text = result.stdout.trim();
  if (text === "") return 0;
  if (text.startsWith("{")) {
    try {
      const parsed = JSON.parse(text) as { hookSpecificOutput?: { additionalContext?: unknown } } | null;
      const context = parsed?.hookSpecificOutput?.additionalContext;
      return typeof context === "string" ? context.length : 0;
    } catch {
      return 0;
    }
  }
  return traits.stdoutIsContext ? text.length : 0;
}

/** What one hook cost one turn: its runs' milliseconds and the characters of context they injected, summed. */
export interface Tally {
  ms: number;
  chars: number;
}

/** One hook's usage from its turns' tallies (at least one): the mean and largest turn, and the context's total. */
export function usageOf(name: string, level: string, tallies: readonly Tally[]): HookBudgetUsage {
  const ms = tallies.reduce((sum, t) => sum + t.ms, 0);
  return {
    name,
    level,
    turns: tallies.length,
    msPerTurn: { mean: Math.round((ms / tallies.length) * 10) / 10, max: Math.round(Math.max(...tallies.map((t) => t.ms)) * 10) / 10 },
    contextChars: { total: tallies.reduce((sum, t) => sum + t.chars, 0), maxPerTurn: Math.max(...tallies.map((t) => t.chars)) },
  };
}

/** Budgets in the order they are shown: by name, then level. */
export const byNameThenLevel = (a: HookBudgetUsage, b: HookBudgetUsage): number => a.name.localeCompare(b.name) || a.level.localeCompare(b.level);

/**
 * The budget each hook used, folded from outcomes in log order (pure). A turn of a session starts at each of its
 * UserPromptSubmit events and runs to the next one: the prompt's Stop and anything between that Stop and the next
 * prompt (a Notification, a SessionEnd) belong to it, and events before a session's first prompt (SessionStart)
 * count in its first turn, since their context reaches the model then. A session with no prompt is one turn.
 *
 * Each hook is its level and name (budgetKey); `nameOf` gives the name a logged run counts under (a hook renamed
 * since, logged under its old name, is one hook): the name it was logged with when absent.
 */
export function foldBudget(events: Iterable<BudgetEvent>, nameOf: (run: HookResult) => string = (run) => run.name): HookBudgetUsage[] {
  /** Per session: the turn under way, hook by hook; and whether a prompt opened it. */
  const open = new Map<string, { turn: Map<string, Tally>; prompted: boolean }>();
  const done = new Map<string, { name: string; level: string; tallies: Tally[] }>();
  const close = (turn: Map<string, Tally>) => {
    for (const [key, tally] of turn) done.get(key)!.tallies.push(tally);
  };
  for (const e of events) {
    let current = open.get(e.sessionId);
    if (e.event === "UserPromptSubmit" && current?.prompted) {
      close(current.turn);
      current = undefined;
    }
    if (current === undefined) {
      current = { turn: new Map(), prompted: e.event === "UserPromptSubmit" };
      open.set(e.sessionId, current);
    } else if (e.event === "UserPromptSubmit") current.prompted = true;
    for (const hook of e.hooks) {
      const name = nameOf(hook);
      const key = budgetKey(hook.level, name);
      if (!done.has(key)) done.set(key, { name, level: hook.level, tallies: [] });
      const tally = current.turn.get(key) ?? { ms: 0, chars: 0 };
      tally.ms += hook.durationMs;
      tally.chars += contextCharsOf(e.event, hook);
      current.turn.set(key, tally);
    }
  }
  for (const { turn } of open.values()) close(turn);
  return [...done.values()].map(({ name, level, tallies }) => usageOf(name, level, tallies)).sort(byNameThenLevel);
}

/** The limits of `qhooks.budget` that apply to one hook: its own by name, else the global ones. */
export function limitsFor(budget: BudgetSettings, hook: string): { msPerTurn?: number | undefined; contextChars?: number | undefined } {
  const own = budget.hooks?.[hook];
  return { msPerTurn: own?.msPerTurn ?? budget.msPerTurn, contextChars: own?.contextChars ?? budget.contextChars };
}

/** Each limit a hook's usage crossed: its largest turn against the limit (a turn over is a turn the user waited). */
export function overBudget(usage: readonly HookBudgetUsage[], budget: BudgetSettings): BudgetOverrun[] {
  const overruns: BudgetOverrun[] = [];
  for (const u of usage) {
    const limits = limitsFor(budget, u.name);
    if (limits.msPerTurn !== undefined && u.msPerTurn.max > limits.msPerTurn)
      overruns.push({ kind: "ms-per-turn", hook: u.name, level: u.level, value: u.msPerTurn.max, limit: limits.msPerTurn });
    if (limits.contextChars !== undefined && u.contextChars.maxPerTurn > limits.contextChars)
      overruns.push({ kind: "context-chars", hook: u.name, level: u.level, value: u.contextChars.maxPerTurn, limit: limits.contextChars });
  }
  return overruns;
}

/** The one line for an overrun. */
export function overrunText(o: BudgetOverrun): string {
  const hook = `${oneLineText(o.hook)} (${oneLineText(o.level)})`;
  return o.kind === "ms-per-turn"
    ? `hook ${hook} added ${o.value} ms to a turn, over its budget of ${o.limit} ms (qhooks.budget.msPerTurn)`
    : `hook ${hook} injected ${o.value} characters of context in a turn, over its budget of ${o.limit} (qhooks.budget.contextChars)`;
}
