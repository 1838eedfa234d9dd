import { messageOf } from "../../errors.js";
import type { EventLog } from "../../store/eventLog.js";
import type { Judged } from "../stages.js";
import { warningLines, type PipelineWarning } from "../../core/warnings.js";

import type { StopCap } from "../../trust/trustedStopBlockCap.js";

export { DEFAULT_STOP_BLOCK_CAP } from "../../settings/stopBlockCap.js";

/**
 * Keeps a Stop hook that forgets `stop_hook_active` from trapping the agent: when the log shows `cap` blocked Stop
 * outcomes in a row for the session, the next block becomes `none`, with a system message saying why. Without a
 * log the guard cannot count, and says so when a Stop hook blocks. A cap of 0 turns the guard off. The cap may
 * depend on the event (it can come from the settings the event is judged by).
 *
 * Made once for a stream: `applies` says, without waiting, whether the event needs the guard at all (only a
 * blocked live Stop does); `run` reads the streak and decides.
 */
export function guardStep(
  log: EventLog,
  cap: number | ((judged: Judged) => StopCap),
  enabled = true,
): { applies: (judged: Judged) => boolean; run: (judged: Judged) => Promise<Judged> } {
  return {
    applies: (judged) => enabled && judged.outcome.event === "Stop" && judged.outcome.blocked,
    run: async (given) => {
      const chosen = typeof cap === "function" ? cap(given) : cap;
      const limit = typeof chosen === "number" ? chosen : chosen.limit;
      const judged = typeof chosen === "number" ? given : chosen.warnings.reduce(withWarning, given);
      const { outcome } = judged;
      if (limit === 0) return judged;
      let streak: number | null;
      try {
        streak = await log.stopBlockStreak(outcome.sessionId);
      } catch (e) {
        return withWarning(judged, { kind: "stop-guard-off", why: "unreadable", detail: messageOf(e) });
      }
      if (streak === null) return withWarning(judged, { kind: "stop-guard-off", why: "no-log", detail: null });
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
    },
  };
}

const withWarning = (judged: Judged, warning: PipelineWarning): Judged => {
  const warnings = [...judged.warnings, warning];
  return { ...judged, warnings, outcome: { ...judged.outcome, warnings: warningLines(warnings) } };
};
