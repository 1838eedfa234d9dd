import { asyncScheduler, defer, from, map, mergeMap, race, timer, type MonoTypeOperatorFunction, type SchedulerLike } from "rxjs";

/** What the timeout branch knows when it wins: the limit, and how long the run had actually been going. */
export interface TimeoutInfo {
  readonly limitMs: number;
  readonly elapsedMs: number;
}

/**
 * Races a run against its time limit. If the limit comes first, the run is unsubscribed (for a hook process, that
 * kills its process group) and `onTimeout` supplies the value that stands in for its result. Unlike rxjs's
 * `timeout`, a timeout here is an expected outcome, emitted as a value, never an error. With `startAfter`, the
 * limit counts from when it resolves (a hook waiting at its gate has not started yet).
 */
export function raceTimeout<T>(
  limitMs: number,
  onTimeout: (info: TimeoutInfo) => T,
  scheduler: SchedulerLike = asyncScheduler,
  startAfter?: PromiseLike<unknown>,
): MonoTypeOperatorFunction<T> {
  if (!(limitMs > 0) || !Number.isFinite(limitMs)) {
    throw new RangeError(`raceTimeout: the limit must be a positive number of milliseconds, got ${limitMs}`);
  }
  return (source) =>
    defer(() => {
      const expire = () => {
        const start = scheduler.now();
        return timer(limitMs, scheduler).pipe(map(() => onTimeout({ limitMs, elapsedMs: scheduler.now() - start })));
      };
      return race(source, startAfter === undefined ? expire() : from(startAfter).pipe(mergeMap(expire)));
    });
}
