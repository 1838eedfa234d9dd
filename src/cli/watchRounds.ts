import { QhooksError, isQhooksError } from "../errors.js";
import { pause, stopOnSignals } from "./intervalArg.js";
import { warn } from "./io.js";

/** Failed rounds in a row after which `--watch` gives up (`--give-up-after`): a place away this long needs a person. */
export const DEFAULT_GIVE_UP_AFTER = 10;

export interface WatchOptions {
  /** Milliseconds between two rounds, and the flag as given (for messages). */
  readonly intervalMs: number;
  readonly interval: string;
  /** Failed rounds in a row before giving up. */
  readonly giveUpAfter: number;
  /** Failures that the next round would meet again (a broken chain, bad usage): they stop at once. */
  readonly fatal: (e: QhooksError) => boolean;
}

/**
 * Runs a continuous command's rounds until SIGINT or SIGTERM: a round that fails with a QhooksError is a warning and
 * the next round tries again, up to `giveUpAfter` failures in a row; then one line says so and the command exits 1.
 * An error that is not a QhooksError is a bug and stops at once.
 */
export async function watchRounds(round: () => Promise<void>, options: WatchOptions): Promise<void> {
  const stop = stopOnSignals();
  let failures = 0;
  while (!stop.aborted) {
    try {
      await round();
      failures = 0;
    } catch (e) {
      if (!isQhooksError(e) || options.fatal(e)) throw e;
      failures++;
      if (failures >= options.giveUpAfter)
        throw new QhooksError(e.code, `gave up after ${failures} failed rounds in a row (--give-up-after ${options.giveUpAfter}); the last: ${e.message}`);
      warn(`${e.message}; trying again in ${options.interval} (${failures} of ${options.giveUpAfter} failed rounds in a row)`);
    }
    await pause(options.intervalMs, stop);
  }
}
