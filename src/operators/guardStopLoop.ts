import { concatMap, type OperatorFunction } from "rxjs";
import { messageOf } from "../errors.js";
import type { EventLog } from "../store/eventLog.js";
import type { Judged } from "./stages.js";

/** Consecutive blocked Stop outcomes a session may have before the next block is overruled. */
export const DEFAULT_STOP_BLOCK_CAP = 8;

/**
 * Keeps a Stop hook that forgets `stop_hook_active` from trapping the agent: when the log shows `cap` blocked Stop
 * outcomes in a row for the session, the next block becomes `none`, with a system message saying why. Without a
 * log the guard cannot count, and says so when a Stop hook blocks. A cap of 0 turns the guard off. The cap may
 * depend on the event (it can come from the settings the event is judged by).
 */
export function guardStopLoop(log: EventLog, cap: number | ((judged: Judged) => number), enabled = true): OperatorFunction<Judged, Judged> {
  return concatMap(async (judged): Promise<Judged> => {
    const { outcome } = judged;
    if (!enabled || outcome.event !== "Stop" || !outcome.blocked) return judged;
    const limit = typeof cap === "function" ? cap(judged) : cap;
    if (limit === 0) return judged;
    let streak: number | null;
    try {
      streak = await log.stopBlockStreak(outcome.sessionId);
    } catch (e) {
      return withWarning(judged, `Stop-loop guard is off for this event: the log cannot be read (${messageOf(e)})`);
    }
    if (streak === null) return withWarning(judged, "Stop-loop guard is off without an event log: a Stop hook that always blocks can keep the agent going forever");
    if (streak < limit) return judged;
    const message = `qhooks: ${streak} Stop hooks in a row blocked session ${outcome.sessionId}; letting the agent stop this time (Stop-loop guard, cap ${limit}: QHOOKS_STOP_BLOCK_CAP or qhooks.stopBlockCap, 0 turns it off). Blocked because: ${outcome.reason ?? "no reason given"}`;
    return {
      ...judged,
      outcome: {
        ...outcome,
        decision: "none",
        blocked: false,
        reason: null,
        systemMessages: [...outcome.systemMessages, message],
      },
    };
  });
}

const withWarning = (judged: Judged, warning: string): Judged => ({
  ...judged,
  outcome: { ...judged.outcome, warnings: [...judged.outcome.warnings, warning] },
});
