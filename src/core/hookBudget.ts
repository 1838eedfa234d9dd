import { EVENT_TRAITS, type EventName } from "../schema/events.js";
import type { HookResult } from "../schema/outcome.js";
import type { BudgetSettings } from "../schema/settings.js";
import { oneLineText } from "../text/oneLine.js";

/** One logged outcome, as much of it as the budget reads. */
export interface BudgetEvent {
  readonly event: EventName;
  readonly sessionId: string;
  readonly hooks: readonly HookResult[];
}

/** What one hook cost the turns it ran in. */
export interface HookBudgetUsage {
  readonly name: string;
  /** Turns in which it ran at least once. */
  readonly turns: number;
  /** Its runs' durations summed per turn: the mean over those turns, and the largest. */
  readonly msPerTurn: { readonly mean: number; readonly max: number };
  /** Characters of context it injected per turn: the total over the window, and the largest turn's. */
  readonly contextChars: { readonly total: number; readonly maxPerTurn: number };
}

/** A limit of `qhooks.budget` that a hook crossed, with a kind (never told apart by text). */
export interface BudgetOverrun {
  readonly kind: "ms-per-turn" | "context-chars";
  readonly hook: string;
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

interface Tally {
  ms: number;
  chars: number;
}

/**
 * The budget each hook used, folded from outcomes in log order (pure). A turn of a session starts at each of its
 * UserPromptSubmit events and runs to the next one: the prompt's Stop and anything between that Stop and the next
 * prompt (a Notification, a SessionEnd) belong to it, and events before a session's first prompt (SessionStart)
 * count in its first turn, since their context reaches the model then. A session with no prompt is one turn.
 */
export function foldBudget(events: Iterable<BudgetEvent>): HookBudgetUsage[] {
  /** Per session: the turn under way, hook by hook; and whether a prompt opened it. */
  const open = new Map<string, { turn: Map<string, Tally>; prompted: boolean }>();
  const done = new Map<string, Tally[]>();
  const close = (turn: Map<string, Tally>) => {
    for (const [name, tally] of turn) {
      const list = done.get(name);
      if (list) list.push(tally);
      else done.set(name, [tally]);
    }
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
      const tally = current.turn.get(hook.name) ?? { ms: 0, chars: 0 };
      tally.ms += hook.durationMs;
      tally.chars += contextCharsOf(e.event, hook);
      current.turn.set(hook.name, tally);
    }
  }
  for (const { turn } of open.values()) close(turn);
  return [...done.entries()]
    .map(([name, tallies]) => {
      const ms = tallies.reduce((sum, t) => sum + t.ms, 0);
      return {
        name,
        turns: tallies.length,
        msPerTurn: { mean: Math.round((ms / tallies.length) * 10) / 10, max: Math.round(Math.max(...tallies.map((t) => t.ms)) * 10) / 10 },
        contextChars: { total: tallies.reduce((sum, t) => sum + t.chars, 0), maxPerTurn: Math.max(...tallies.map((t) => t.chars)) },
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
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
      overruns.push({ kind: "ms-per-turn", hook: u.name, value: u.msPerTurn.max, limit: limits.msPerTurn });
    if (limits.contextChars !== undefined && u.contextChars.maxPerTurn > limits.contextChars)
      overruns.push({ kind: "context-chars", hook: u.name, value: u.contextChars.maxPerTurn, limit: limits.contextChars });
  }
  return overruns;
}

/** The one line for an overrun. */
export function overrunText(o: BudgetOverrun): string {
  const hook = oneLineText(o.hook);
  return o.kind === "ms-per-turn"
    ? `hook ${hook} added ${o.value} ms to a turn, over its budget of ${o.limit} ms (qhooks.budget.msPerTurn)`
    : `hook ${hook} injected ${o.value} characters of context in a turn, over its budget of ${o.limit} (qhooks.budget.contextChars)`;
}
