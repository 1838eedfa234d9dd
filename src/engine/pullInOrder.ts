import { Observable, Subscription } from "rxjs";

/**
 * Maps every item of an async iterable through `project` (one value each), at most `concurrency` at a time, and
 * emits the results in the source's order. Unlike `from(iterable).pipe(mergeMap(project, n))`, which reads the
 * whole source into mergeMap's buffer, items are pulled only when a slot is free and the reorder window has room,
 * so memory stays bounded however long the source is. Unsubscribing stops the inner runs and the source.
 */
export function pullInOrder<T, R>(source: AsyncIterable<T>, concurrency: number, project: (item: T, index: number) => Observable<R>): Observable<R> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`pullInOrder: concurrency must be a whole number >= 1, got ${concurrency}`);
  }
  // Finished results waiting for an earlier, slower one: bounded, so one stuck item cannot make memory grow.
  const window = concurrency * 4;
  return new Observable<R>((subscriber) => {
    const iterator = source[Symbol.asyncIterator]();
    const inner = new Subscription();
    const ready = new Map<number, R>();
    let active = 0;
    let pulled = 0;
    let emitted = 0;
    let exhausted = false;
    let pulling = false;

    const flush = () => {
      while (ready.has(emitted)) {
        const value = ready.get(emitted)!;
        ready.delete(emitted);
        emitted++;
        subscriber.next(value);
      }
      if (exhausted && active === 0 && ready.size === 0) subscriber.complete();
    };

    const pull = async (): Promise<void> => {
      if (pulling) return;
      pulling = true;
      try {
        while (!exhausted && !subscriber.closed && active < concurrency && pulled - emitted < window) {
          const next = await iterator.next();
          // Unsubscribed while the source was still producing this item: it must not start an inner run.
          if (subscriber.closed) break;
          if (next.done) {
            exhausted = true;
            break;
          }
          const index = pulled++;
          active++;
          let produced = false;
          inner.add(
            project(next.value, index).subscribe({
              next: (value) => {
                if (!produced) ready.set(index, value);
                produced = true;
              },
              error: (e: unknown) => subscriber.error(e),
              complete: () => {
                active--;
                if (!produced) subscriber.error(new Error(`pullInOrder: item ${index} produced no value`));
                flush();
                void pull();
              },
            }),
          );
        }
      } catch (e) {
        subscriber.error(e);
      } finally {
        pulling = false;
      }
      flush();
    };

    void pull();
    return () => {
      inner.unsubscribe();
      void iterator.return?.();
    };
  });
}
