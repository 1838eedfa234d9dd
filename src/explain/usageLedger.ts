import { EVENT_TRAITS, EventNameSchema } from "../schema/events.js";
import type { MatchCount, Stats } from "../schema/logRecord.js";
import type { HookSource } from "../schema/explanation.js";
import type { HookUsage, UsageLedger } from "../schema/usage.js";
import { matches } from "../core/compileMatcher.js";
import { warningFor } from "./explainEvent.js";
import { entryKey, type ConfigView } from "./loggedConfig.js";

export interface LedgerInput {
  /** The configuration now, entry by entry. */
  readonly view: ConfigView;
  readonly configHash: string;
  readonly configWarnings: readonly string[];
  /** The log's per-hook statistics and its events by match value, over the same window. */
  readonly stats: Stats;
  readonly matchCounts: readonly MatchCount[];
  readonly since: Date | undefined;
  readonly until: Date | undefined;
}

const runKey = (level: string | null, name: string): string => JSON.stringify([level, name]);

/**
 * The usage ledger: every configured hook (loaded or not, and why), with its runs and times over a window of the
 * log, and whether its matcher matched any of the events of its kind there ("never fired"). Pure.
 */
export function usageLedger(input: LedgerInput): UsageLedger {
  const { view } = input;
  // A hook is its level and name, as the log keeps its runs: the user's `check.sh` and the project's are two hooks.
  const byHook = new Map(input.stats.hooks.map((h) => [runKey(h.level, h.name), h]));
  const named = (entry: ConfigView["entries"][number]) => view.hooksAt.get(entryKey(entry.source, entry.path))?.name ?? entry.name ?? entry.command;
  const sharing = new Map<string, number>();
  for (const entry of view.entries) {
    const name = named(entry);
    if (name !== null) sharing.set(name, (sharing.get(name) ?? 0) + 1);
  }
  const hooks: HookUsage[] = view.entries.map((entry) => {
    const s = view.sources[entry.source]!;
    const source: HookSource = { level: s.level, file: s.display, plugin: s.plugin?.name ?? null, path: entry.path };
    const hook = view.hooksAt.get(entryKey(entry.source, entry.path));
    const name = named(entry);
    // Runs whose level the log does not say (a damaged outcome) are this hook's only when no other hook has its name.
    const stats =
      name === null
        ? undefined
        : (byHook.get(runKey(s.plugin ? "plugin" : s.level, name)) ?? (sharing.get(name) === 1 ? byHook.get(runKey(null, name)) : undefined));
    const event = EventNameSchema.safeParse(entry.event);
    const counts = event.success ? input.matchCounts.filter((m) => m.event === event.data) : [];
    const events = counts.reduce((n, m) => n + m.count, 0);
    // UserPromptSubmit, Stop and the like ignore matchers: every event of theirs fires the hook.
    const matched = hook
      ? counts.filter((m) => EVENT_TRAITS[hook.event].matchField === null || matches(hook.matcher, m.matchValue)).reduce((n, m) => n + m.count, 0)
      : 0;
    return {
      name,
      event: entry.event,
      matcher: hook ? hook.matcherSource : entry.matcher,
      mode: (hook ? hook.shadow : entry.shadow) ? "shadow" : "enforce",
      source,
      loaded: hook !== undefined,
      notLoaded: hook ? null : warningFor(entry, view),
      runs: stats?.runs ?? 0,
      blocks: stats?.blocks ?? 0,
      errors: stats?.errors ?? 0,
      invalidOutputs: stats?.invalidOutputs ?? 0,
      timeouts: stats?.timeouts ?? 0,
      p50Ms: stats?.p50Ms ?? null,
      p95Ms: stats?.p95Ms ?? null,
      maxMs: stats?.maxMs ?? null,
      lastRun: stats?.lastTs ?? null,
      events,
      matched,
      neverFired: hook !== undefined && events > 0 && matched === 0,
    };
  });
  return {
    since: input.since?.toISOString() ?? null,
    until: input.until?.toISOString() ?? null,
    configHash: input.configHash,
    hooks,
    warnings: [...input.configWarnings],
  };
}
