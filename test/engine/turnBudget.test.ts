import { expect } from "chai";
import { Subject } from "rxjs";
import { turnBudget, type NextTurn } from "../../src/engine/turnBudget.js";

/** A hand-turned event loop: `turn()` runs what was scheduled for the next turn, as setImmediate would. */
function loop(): { nextTurn: NextTurn; turn: () => void; pending: () => number } {
  let queue: (() => void)[] = [];
  return {
    nextTurn: (callback) => void queue.push(callback),
    turn: () => {
      const now = queue;
      queue = [];
      for (const callback of now) callback();
    },
    pending: () => queue.length,
  };
}

interface Item {
  readonly name: string;
  readonly at: number;
}

function harness(budgetMs = 2) {
  const events = loop();
  const source = new Subject<Item>();
  const seen: string[] = [];
  let completed = false;
  let failed: unknown = null;
  const subscription = source.pipe(turnBudget(budgetMs, (item: Item) => item.at, events.nextTurn)).subscribe({
    next: (item) => seen.push(item.name),
    complete: () => (completed = true),
    error: (e) => (failed = e),
  });
  return { events, source, seen, subscription, done: () => completed, failed: () => failed };
}

describe("streams: turnBudget, the cooperative scheduler of synchronous judging", () => {
  it("never makes a value wait within the budget: every value passes in the turn it arrives", () => {
    const h = harness(2);
    for (const [name, at] of [
      ["a", 100],
      ["b", 101],
      ["c", 102],
    ] as const)
      h.source.next({ name, at });
    expect(h.seen).to.deep.equal(["a", "b", "c"]);
  });

  it("past the budget a value waits for the next turn, and passes then", () => {
    const h = harness(2);
    h.source.next({ name: "a", at: 100 });
    h.source.next({ name: "b", at: 103 });
    expect(h.seen).to.deep.equal(["a"]);
    h.events.turn();
    expect(h.seen).to.deep.equal(["a", "b"]);
  });

  it("keeps order: after one value waits, every later one waits behind it, even one sent in a new turn", () => {
    const h = harness(2);
    h.source.next({ name: "a", at: 100 });
    h.source.next({ name: "b", at: 103 });
    h.source.next({ name: "c", at: 100 }); // within the budget by its time, but behind b
    expect(h.seen).to.deep.equal(["a"]);
    h.events.nextTurn(() => h.source.next({ name: "d", at: 200 })); // queued before the waiting ones pass
    h.events.turn();
    h.events.turn();
    expect(h.seen).to.deep.equal(["a", "b", "c", "d"]);
  });

  it("a new turn starts a new budget", () => {
    const h = harness(2);
    h.source.next({ name: "a", at: 100 });
    h.events.turn(); // the turn ends
    h.source.next({ name: "b", at: 500 });
    h.source.next({ name: "c", at: 501 });
    expect(h.seen).to.deep.equal(["a", "b", "c"]);
  });

  it("a value sent while the waiting ones pass waits behind them", () => {
    const events = loop();
    const source = new Subject<Item>();
    const seen: string[] = [];
    source.pipe(turnBudget(2, (i: Item) => i.at, events.nextTurn)).subscribe((item) => {
      seen.push(item.name);
      if (item.name === "b") source.next({ name: "echo", at: 0 });
    });
    source.next({ name: "a", at: 100 });
    source.next({ name: "b", at: 103 });
    source.next({ name: "c", at: 103 });
    events.turn();
    expect(seen).to.deep.equal(["a", "b", "c"]);
    events.turn();
    expect(seen).to.deep.equal(["a", "b", "c", "echo"]);
  });

  it("completion and errors wait behind the values still waiting", () => {
    const h = harness(2);
    h.source.next({ name: "a", at: 100 });
    h.source.next({ name: "b", at: 103 });
    h.source.complete();
    expect(h.done()).to.equal(false);
    h.events.turn();
    expect(h.seen).to.deep.equal(["a", "b"]);
    expect(h.done()).to.equal(true);

    const e = harness(2);
    e.source.next({ name: "a", at: 100 });
    e.source.next({ name: "b", at: 103 });
    e.source.error(new Error("boom"));
    expect(e.failed()).to.equal(null);
    e.events.turn();
    expect(e.seen).to.deep.equal(["a", "b"]);
    expect((e.failed() as Error).message).to.equal("boom");
  });

  it("completion and errors with nothing waiting pass at once", () => {
    const h = harness(2);
    h.source.next({ name: "a", at: 100 });
    h.source.complete();
    expect(h.done()).to.equal(true);
    const e = harness(2);
    e.source.error(new Error("boom"));
    expect((e.failed() as Error).message).to.equal("boom");
  });

  it("completion sent while the waiting ones pass still waits behind a value sent before it", () => {
    const events = loop();
    const source = new Subject<Item>();
    const seen: string[] = [];
    let completed = false;
    source.pipe(turnBudget(2, (i: Item) => i.at, events.nextTurn)).subscribe({
      next: (item) => {
        seen.push(item.name);
        if (item.name === "b") {
          source.next({ name: "echo", at: 0 });
          source.complete();
        }
      },
      complete: () => (completed = true),
    });
    source.next({ name: "a", at: 100 });
    source.next({ name: "b", at: 103 });
    events.turn();
    expect(seen).to.deep.equal(["a", "b"]);
    expect(completed).to.equal(false);
    events.turn();
    expect(seen).to.deep.equal(["a", "b", "echo"]);
    expect(completed).to.equal(true);
  });

  it("once the waiting values have passed, a value in the new turn passes at once", () => {
    const h = harness(2);
    h.source.next({ name: "a", at: 100 });
    h.source.next({ name: "b", at: 103 });
    h.events.turn();
    h.source.next({ name: "c", at: 104 });
    expect(h.seen).to.deep.equal(["a", "b", "c"]);
  });

  it("unsubscribing lets go of the source", () => {
    const h = harness(2);
    expect(h.source.observed).to.equal(true);
    h.subscription.unsubscribe();
    expect(h.source.observed).to.equal(false);
  });

  it("takes a budget of 0: values of the same instant pass together, a later one waits", () => {
    const h = harness(0);
    h.source.next({ name: "a", at: 100 });
    h.source.next({ name: "b", at: 100 });
    h.source.next({ name: "c", at: 100.5 });
    expect(h.seen).to.deep.equal(["a", "b"]);
    h.events.turn();
    expect(h.seen).to.deep.equal(["a", "b", "c"]);
  });

  it("unsubscribing drops the waiting values", () => {
    const h = harness(2);
    h.source.next({ name: "a", at: 100 });
    h.source.next({ name: "b", at: 103 });
    h.subscription.unsubscribe();
    h.events.turn();
    expect(h.seen).to.deep.equal(["a"]);
  });

  it("refuses a budget that is not a finite number of at least 0 when it is built", () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => turnBudget(bad, () => 0)).to.throw(RangeError, /budgetMs/);
  });

  it("with the real event loop, a flood of values sent one after the other, each awaited, lets an immediate in", async () => {
    const source = new Subject<number>();
    const waiting = new Map<number, () => void>();
    source.pipe(turnBudget(2, () => performance.now())).subscribe((i) => waiting.get(i)!());
    let passedWhenItRan = -1;
    let passed = 0;
    setImmediate(() => (passedWhenItRan = passed));
    // As awaited dispatches are: each value's promise resolves when it has passed, and the next is sent then.
    const until = performance.now() + 50;
    while (performance.now() < until) {
      await new Promise<void>((resolve) => {
        waiting.set(passed, resolve);
        source.next(passed);
      });
      passed++;
    }
    expect(passedWhenItRan, "the immediate ran in the middle of the flood").to.be.greaterThan(0).and.lessThan(passed);
  });
});
