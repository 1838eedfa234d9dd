import { expect } from "chai";
import { Observable, Subject, lastValueFrom, map, of, take, timer, toArray } from "rxjs";
import { setTimeout as sleep } from "node:timers/promises";
import { pullInOrder } from "../../src/engine/pullInOrder.js";

/** A synthetic source that counts what is pulled from it, optionally slow to give each item. */
class CountingSource implements AsyncIterable<number> {
  pulled = 0;
  nextCalls = 0;
  returned = false;
  constructor(
    private readonly length: number,
    private readonly delayMs = 0,
  ) {}
  [Symbol.asyncIterator](): AsyncIterator<number> {
    return {
      next: async () => {
        this.nextCalls++;
        if (this.delayMs > 0) await sleep(this.delayMs);
        // Like an async generator, a pull already under way still delivers its item after return().
        if (this.pulled >= this.length) return { done: true, value: undefined };
        return { done: false, value: this.pulled++ };
      },
      return: async () => {
        this.returned = true;
        return { done: true, value: undefined };
      },
    };
  }
}

/** Inner runs that record how many are running at once. */
function tracker() {
  const t = {
    active: 0,
    most: 0,
    started: [] as number[],
    /** An inner run of `ms` milliseconds that emits `item * 10`. */
    run: (item: number, ms: number) =>
      new Observable<number>((subscriber) => {
        t.started.push(item);
        t.active++;
        t.most = Math.max(t.most, t.active);
        const timerId = setTimeout(() => {
          subscriber.next(item * 10);
          subscriber.complete();
        }, ms);
        return () => {
          clearTimeout(timerId);
          t.active--;
        };
      }),
  };
  return t;
}

describe("pullInOrder", () => {
  it("runs at most N inner runs at once and emits in source order, whatever order they finish in", async () => {
    for (const n of [1, 3, 8]) {
      const t = tracker();
      // Durations that make later items finish before earlier ones.
      const out = await lastValueFrom(pullInOrder(new CountingSource(40), n, (item) => t.run(item, (7 * (40 - item)) % 13)).pipe(toArray()));
      expect(out).to.deep.equal(Array.from({ length: 40 }, (_, i) => i * 10));
      expect(t.most, `concurrency ${n}`).to.equal(n);
      expect(t.started).to.deep.equal(Array.from({ length: 40 }, (_, i) => i));
      expect(t.active).to.equal(0);
    }
  });

  it("passes each item's index, and completes at once for an empty source", async () => {
    const indexes = await lastValueFrom(pullInOrder(new CountingSource(5), 2, (item, index) => timer(5 - item).pipe(map(() => [item, index]))).pipe(toArray()));
    expect(indexes).to.deep.equal([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
    expect(await lastValueFrom(pullInOrder(new CountingSource(0), 2, (item) => timer(1).pipe(map(() => item))).pipe(toArray()))).to.deep.equal([]);
  });

  it("pulls lazily: nothing before subscription, and never more than a bounded window ahead of the slowest unfinished item", async () => {
    const windows: number[] = [];
    for (const length of [1_000, 100_000]) {
      const source = new CountingSource(length);
      const gate = new Subject<number>();
      // Item 0 waits for the gate; every other item finishes at once.
      const observable = pullInOrder(source, 2, (item) => (item === 0 ? gate.pipe(take(1)) : of(item)));
      await sleep(10);
      expect(source.nextCalls, "nothing is pulled before subscription").to.equal(0);
      const emitted: number[] = [];
      const done = new Promise<void>((resolve, reject) => observable.subscribe({ next: (v) => emitted.push(v), error: reject, complete: resolve }));
      await sleep(100);
      // Item 0 is stuck: the source is read only a window ahead of it, however long the source is.
      expect(emitted).to.deep.equal([]);
      const ahead = source.pulled;
      expect(ahead, "finished items wait in the window").to.be.greaterThan(2);
      expect(ahead).to.be.lessThan(50);
      await sleep(50);
      expect(source.pulled, "no further pulls while the window is full").to.equal(ahead);
      windows.push(ahead);
      gate.next(0);
      await done;
      expect(emitted).to.deep.equal(Array.from({ length }, (_, i) => i));
      expect(source.pulled).to.equal(length);
    }
    expect(windows[0], "the window does not grow with the source").to.equal(windows[1]);
  });

  it("keeps the reorder window bounded while items finish out of order", async () => {
    const source = new CountingSource(300);
    let emitted = 0;
    let maxAhead = 0;
    const out = await lastValueFrom(
      pullInOrder(source, 4, (item) => {
        maxAhead = Math.max(maxAhead, source.pulled - emitted);
        // Every 50th item is slow: the others pile up behind it, up to the window.
        return timer(item % 50 === 0 ? 40 : 0).pipe(map(() => item));
      }).pipe(
        map((v) => {
          emitted++;
          return v;
        }),
        toArray(),
      ),
    );
    expect(out).to.deep.equal(Array.from({ length: 300 }, (_, i) => i));
    expect(maxAhead).to.be.greaterThan(4);
    expect(maxAhead).to.be.lessThan(100);
  });

  it("stops pulling and stops its inner runs when unsubscribed", async () => {
    const source = new CountingSource(Number.MAX_SAFE_INTEGER, 5);
    const t = tracker();
    let projected = 0;
    const got: number[] = [];
    const subscription = pullInOrder(source, 3, (item) => {
      projected++;
      return t.run(item, item < 3 ? 0 : 10_000);
    }).subscribe((v) => got.push(v));
    await sleep(100);
    expect(got).to.deep.equal([0, 10, 20]);
    expect(t.active).to.equal(3); // items 3, 4, 5 hang
    subscription.unsubscribe();
    const [nextCalls, projectedThen] = [source.nextCalls, projected];
    expect(t.active, "inner runs are stopped").to.equal(0);
    await sleep(100);
    expect(source.returned, "the source is closed").to.equal(true);
    expect(source.nextCalls, "no pull after unsubscribe").to.equal(nextCalls);
    expect(projected, "no inner run started after unsubscribe").to.equal(projectedThen);
    expect(t.active).to.equal(0);
  });

  it("stops pulling when unsubscribed while a pull is under way", async () => {
    const source = new CountingSource(Number.MAX_SAFE_INTEGER, 30);
    let projected = 0;
    const got: number[] = [];
    const subscription = pullInOrder(source, 1, (item) => {
      projected++;
      return timer(0).pipe(map(() => item));
    }).subscribe((v) => got.push(v));
    // The first item arrives after ~30 ms and finishes at once; by 45 ms the second pull is under way.
    await sleep(45);
    subscription.unsubscribe();
    const projectedThen = projected;
    await sleep(80);
    expect(got.length).to.be.at.most(projectedThen);
    expect(projected, "the item that arrives after unsubscribe is not run").to.equal(projectedThen);
  });

  it("fails fast on a concurrency that is not a whole number >= 1", () => {
    for (const n of [0, -1, 1.5, Number.NaN]) {
      expect(() => pullInOrder(new CountingSource(3), n, (item) => timer(0).pipe(map(() => item))), String(n)).to.throw(RangeError, /concurrency/);
    }
  });

  it("passes on an error of the source or of an inner run, and stops", async () => {
    const failing: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => {
        let i = 0;
        return { next: async () => (i < 2 ? { done: false, value: i++ } : Promise.reject(new Error("source broke"))) };
      },
    };
    let error: unknown;
    await lastValueFrom(pullInOrder(failing, 2, (item) => timer(1).pipe(map(() => item)))).catch((e: unknown) => (error = e));
    expect((error as Error).message).to.equal("source broke");
    const t = tracker();
    const inner = pullInOrder(new CountingSource(10), 2, (item) =>
      item === 1 ? new Observable<number>((s) => s.error(new Error("inner broke"))) : t.run(item, 50),
    );
    await lastValueFrom(inner).catch((e: unknown) => (error = e));
    expect((error as Error).message).to.equal("inner broke");
    expect(t.active, "the sibling run is stopped").to.equal(0);
  });
});
