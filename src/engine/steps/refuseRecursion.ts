import { chainEntry } from "../../exec/hookEnvironment.js";
import type { Rejected } from "../../core/rejected.js";
import type { Matched } from "../stages.js";

/** How many `qhooks run`s may be nested inside each other's hooks. */
export const MAX_NESTING = 4;

/**
 * Refuses an event when one of its hooks is already running, for the same event, further up the chain of hooks
 * this process was started from, or when runs are nested too deep: otherwise a hook that calls back into its agent
 * would loop forever. Made once for a stream.
 */
export function refuseStep(callChain: readonly string[]): (matched: Matched) => Matched | Rejected {
  return (matched) => {
    if (callChain.length === 0) return matched;
    const { event, sessionId } = matched.valid;
    const reject = (error: string): Rejected => ({
      kind: "rejected",
      arrival: matched.arrival,
      rejection: { kind: "recursion", event, sessionId, error, raw: matched.valid.json },
      seq: null,
      warnings: [],
    });
    if (callChain.length > MAX_NESTING) {
      return reject(`recursion: qhooks runs nested ${callChain.length} deep inside hooks (at most ${MAX_NESTING}); refusing to run ${event} hooks`);
    }
    const running = new Set(callChain);
    const cycle = matched.hooks.find((h) => h.command !== null && running.has(chainEntry(event, h.command)));
    if (cycle) return reject(`recursion: hook ${cycle.name} is already running for ${event} further up the chain; refusing to run it again`);
    return matched;
  };
}
