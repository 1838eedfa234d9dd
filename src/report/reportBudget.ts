import { budgetKey, byNameThenLevel, contextCharsOf, usageOf, type BudgetEvent, type HookBudgetUsage, type Tally } from "../core/hookBudget.js";

/** One session's turns under way, read newest first (see budgetStep). */
interface SessionTurns {
  /** The turn being read: its events from the newest back. */
  current: Map<string, Tally>;
  /** Whether the prompt that opens `current` has been read: an older event is then of an earlier turn. */
  prompted: boolean;
  /** The turn read before `current`: whole, unless `current` turns out to be the events before the first prompt. */
  held: Map<string, Tally> | null;
}

/**
 * The budget per hook (time per turn, context injected) as the report folds it: from events read newest first, the
 * order the report reads them in, keeping one tally per hook per turn (not the events). It gives what the core's
 * `foldBudget` gives for the same events in log order: a turn runs from a session's prompt to its next one, and
 * the events before a session's first prompt count in its first turn.
 */
export interface ReportBudget {
  readonly sessions: Map<string, SessionTurns>;
  /** By budgetKey: each hook's name, level and the tallies of its turns closed so far. */
  readonly done: Map<string, { readonly name: string; readonly level: string; readonly tallies: Tally[] }>;
}

export const emptyBudget = (): ReportBudget => ({ sessions: new Map(), done: new Map() });

const closeTurn = (done: ReportBudget["done"], turn: ReadonlyMap<string, Tally>): void => {
  for (const [key, tally] of turn) done.get(key)!.tallies.push({ ...tally });
};

/** `budget` with one more event counted in, that event older than every one before it in its session. */
export function budgetStep(budget: ReportBudget, e: BudgetEvent): ReportBudget {
  let session = budget.sessions.get(e.sessionId);
  if (session === undefined) budget.sessions.set(e.sessionId, (session = { current: new Map(), prompted: false, held: null }));
  // The turn read so far began at its prompt: this older event is of the turn before, or before the first prompt.
  if (session.prompted) {
    if (session.held !== null) closeTurn(budget.done, session.held);
    session.held = session.current;
    session.current = new Map();
    session.prompted = false;
  }
  for (const hook of e.hooks) {
    const key = budgetKey(hook.level, hook.name);
    if (!budget.done.has(key)) budget.done.set(key, { name: hook.name, level: hook.level, tallies: [] });
    const tally = session.current.get(key) ?? { ms: 0, chars: 0 };
    tally.ms += hook.durationMs;
    tally.chars += contextCharsOf(e.event, hook);
    session.current.set(key, tally);
  }
  if (e.event === "UserPromptSubmit") session.prompted = true;
  return budget;
}

/**
 * Each hook's usage over what was read, by name then level; `budget` is left as it was. A session's turn still
 * open is whole: the events read before its prompt (older ones were not read) belong to it.
 */
export function budgetRows(budget: ReportBudget): HookBudgetUsage[] {
  const tallies = new Map([...budget.done].map(([key, d]) => [key, [...d.tallies]]));
  const add = (turn: ReadonlyMap<string, Tally>) => {
    for (const [key, tally] of turn) tallies.get(key)!.push(tally);
  };
  for (const s of budget.sessions.values()) {
    if (s.prompted || s.held === null) {
      if (s.held !== null) add(s.held);
      if (s.current.size > 0) add(s.current);
    } else {
      // No prompt before `current`: those are the events before the session's first prompt, of its first turn.
      const first = new Map([...s.held].map(([key, t]) => [key, { ...t }]));
      for (const [key, t] of s.current) {
        const had = first.get(key);
        if (had) {
          had.ms += t.ms;
          had.chars += t.chars;
        } else first.set(key, { ...t });
      }
      add(first);
    }
  }
  return [...budget.done]
    .filter(([key]) => tallies.get(key)!.length > 0)
    .map(([key, d]) => usageOf(d.name, d.level, tallies.get(key)!))
    .sort(byNameThenLevel);
}
