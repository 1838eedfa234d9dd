import { lastValueFrom, reduce } from "rxjs";
import { replay$, type ReplayOptions } from "./replay.js";

/** What a replay would run, counted before anything runs: what `qhooks replay` says (and asks) first. */
export interface ReplayPlan {
  /** Events selected. */
  readonly events: number;
  /** Events with at least one hook to run. */
  readonly eventsRunning: number;
  /** The hooks that would run, each named once, in the order first met. */
  readonly hooks: readonly string[];
  /** Hook runs in all (a hook that matches 10 events runs 10 times). */
  readonly runs: number;
  /** Hooks `qhooks.replay.skip` keeps from running, and hooks a `qhooks.replay.stub` answers for, each named once. */
  readonly skippedHooks: readonly string[];
  readonly stubbedHooks: readonly string[];
  /** Events `--skip-event` leaves out. */
  readonly skippedEvents: number;
}

/**
 * Counts what a replay with these options would run: a match-only pass over the same selection, not logged. Its
 * warnings (a broken settings file, a misspelt name in qhooks.replay) are the replay's own: said before it asks.
 */
export function planReplay(options: ReplayOptions): Promise<ReplayPlan> {
  const hooks = new Set<string>();
  const skippedHooks = new Set<string>();
  const stubbedHooks = new Set<string>();
  const initial = { events: 0, eventsRunning: 0, runs: 0, skippedEvents: 0 };
  return lastValueFrom(
    replay$({ ...options, matchOnly: true, recordRun: false }).pipe(
      reduce((counts, r) => {
        const left = new Set([...(r.hooksSkipped ?? []), ...(r.hooksStubbed ?? [])]);
        const runs = r.skipped === null ? r.after.hooks.filter((n) => !left.has(n)) : [];
        for (const n of runs) hooks.add(n);
        for (const n of r.hooksSkipped ?? []) skippedHooks.add(n);
        for (const n of r.hooksStubbed ?? []) stubbedHooks.add(n);
        return {
          events: counts.events + 1,
          eventsRunning: counts.eventsRunning + (runs.length > 0 ? 1 : 0),
          runs: counts.runs + runs.length,
          skippedEvents: counts.skippedEvents + (r.skipEvent ? 1 : 0),
        };
      }, initial),
    ),
    { defaultValue: initial },
  ).then((counts) => ({ ...counts, hooks: [...hooks], skippedHooks: [...skippedHooks], stubbedHooks: [...stubbedHooks] }));
}
