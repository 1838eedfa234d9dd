import { catchError, of, take, throwIfEmpty, type MonoTypeOperatorFunction } from "rxjs";

/**
 * Exactly one value out of an inner observable of one event: its first value, or `failure(error)` when it errors
 * or completes without a value (a runner that ends without a result would otherwise leave the event, and the
 * dispatch() waiting for it, without an answer forever).
 */
export function oneResult<T>(failure: (error: unknown) => T): MonoTypeOperatorFunction<T> {
  return (source) =>
    source.pipe(
      take(1),
      throwIfEmpty(() => new Error("ended without a result")),
      catchError((error: unknown) => of(failure(error))),
    );
}
