import { Observable, type OperatorFunction } from "rxjs";

/** Runs a callback in a later turn of the event loop (setImmediate by default; tests pass their own). */
export type NextTurn = (callback: () => void) => void;

const setImmediateTurn: NextTurn = (callback) => void setImmediate(callback);

/**
 * A cooperative scheduler for a synchronous pipeline: values pass through at once while the current turn of the
 * event loop is younger than `budgetMs`; past it, they wait for the next turn, in order. A flood of dispatches
 * awaited one after the other is a chain of microtasks that would otherwise never let timers, the hooks' pipes or,
 * between two commits, another process waiting for the log's lock in.
 *
 * - Time is read from the values (`timeOf`, e.g. an arrival's own timestamp): the operator reads no clock.
 * - A turn starts with the first value that passes at once, and ends when the event loop gets to `nextTurn`.
 * - Order is kept: once a value waits, every later value waits behind it, even one that arrives in a new turn.
 * - Waiting values all pass at the start of the next turn (a new budget starts with the next value after them);
 *   completion and errors wait behind them too.
 */
export function turnBudget<T>(budgetMs: number, timeOf: (value: T) => number, nextTurn: NextTurn = setImmediateTurn): OperatorFunction<T, T> {
  if (!Number.isFinite(budgetMs) || budgetMs < 0) throw new RangeError(`turnBudget: budgetMs must be a finite number of at least 0, not ${budgetMs}`);
  return (source) =>
    new Observable<T>((subscriber) => {
      let turnStarted: number | null = null;
      let waiting: T[] = [];
      let end: (() => void) | null = null;
      let closed = false;
      let draining = false;

      const drain = () => {
        if (closed) return;
        const batch = waiting;
        waiting = [];
        // A value sent while the batch is passed on (by whoever a value of it reached) waits behind the batch.
        draining = true;
        for (const value of batch) subscriber.next(value);
        draining = false;
        if (waiting.length === 0) end?.();
      };
      const wait = (value: T) => {
        if (waiting.length === 0) nextTurn(drain);
        waiting.push(value);
      };

      const subscription = source.subscribe({
        next: (value) => {
          if (waiting.length > 0 || draining) return wait(value);
          const at = timeOf(value);
          if (turnStarted === null) {
            turnStarted = at;
            nextTurn(() => void (turnStarted = null));
          } else if (at - turnStarted > budgetMs) return wait(value);
          subscriber.next(value);
        },
        error: (error: unknown) => {
          end = () => subscriber.error(error);
          if (waiting.length === 0) end();
        },
        complete: () => {
          end = () => subscriber.complete();
          if (waiting.length === 0) end();
        },
      });
      return () => {
        closed = true;
        waiting = [];
        subscription.unsubscribe();
      };
    });
}
