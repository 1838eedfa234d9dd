import { config, expect } from "chai";
import { forkJoin, map, mergeMap, type Observable } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { raceTimeout, type TimeoutInfo } from "../../src/engine/raceTimeout.js";

/** Marble tests in virtual time (one frame = 1 ms in run mode), asserted with chai's deep equality. */
// Show whole marble frames when an assertion fails, not "…(1)".
config.truncateThreshold = 0;
const testScheduler = () =>
  new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });

type Run = string | { timedOut: TimeoutInfo };
const onTimeout = (info: TimeoutInfo): Run => ({ timedOut: info });

describe("raceTimeout (marbles)", () => {
  it("lets a source that finishes before the limit win, with no timeout value, and ends its subscription normally", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<Run>("--a|");
      expectObservable(source.pipe(raceTimeout(5, onTimeout))).toBe("--a|");
      expectSubscriptions(source.subscriptions).toBe("^--!");
    });
  });

  it("emits the timeout value with {limitMs, elapsedMs} and unsubscribes the source at the limit", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<Run>("-----a|");
      expectObservable(source.pipe(raceTimeout(3, onTimeout))).toBe("---(t|)", { t: { timedOut: { limitMs: 3, elapsedMs: 3 } } });
      expectSubscriptions(source.subscriptions).toBe("^--!");
    });
  });

  it("uses an explicitly given scheduler for the limit and for the elapsed time", () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<Run>("----------a|");
      expectObservable(source.pipe(raceTimeout(4, onTimeout, ts))).toBe("----(t|)", { t: { timedOut: { limitMs: 4, elapsedMs: 4 } } });
      expectSubscriptions(source.subscriptions).toBe("^---!");
    });
  });

  it("starts the clock at subscription, not when the operator is built, and gives each subscription its own clock", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<Run>("------a|");
      const raced = source.pipe(raceTimeout(3, onTimeout));
      const t = { timedOut: { limitMs: 3, elapsedMs: 3 } };
      expectObservable(raced, "--^").toBe("-----(t|)", { t });
      expectObservable(raced, "----^").toBe("-------(t|)", { t });
      expectSubscriptions(source.subscriptions).toBe(["--^--!", "----^--!"]);
    });
  });

  it("passes a source error through when it comes before the limit, and then stops the timer", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<Run>("-#", undefined, new Error("boom"));
      expectObservable(source.pipe(raceTimeout(3, onTimeout))).toBe("-#", undefined, new Error("boom"));
      expectSubscriptions(source.subscriptions).toBe("^!");
    });
  });

  it("emits nothing after a source that completed empty before the limit (the completion wins the race)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<Run>("--|").pipe(raceTimeout(3, onTimeout))).toBe("--|");
    });
  });

  it("does not call onTimeout when the source wins", () => {
    let calls = 0;
    testScheduler().run(({ cold, expectObservable }) => {
      const op = raceTimeout<Run>(3, (info) => {
        calls += 1;
        return onTimeout(info);
      });
      expectObservable(cold<Run>("-a|").pipe(op)).toBe("-a|");
    });
    expect(calls).to.equal(0);
  });

  for (const bad of [0, -1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
    it(`throws a RangeError when built with the limit ${bad}, before anything subscribes`, () => {
      expect(() => raceTimeout(bad, onTimeout)).to.throw(RangeError, /positive number of milliseconds/);
    });
  }

  it("accepts a fractional limit", () => {
    expect(() => raceTimeout(0.5, onTimeout)).not.to.throw();
  });
});

/**
 * The shape of runHookGroup (src/engine/steps/runHooks.ts): per event, forkJoin of every hook run, each raced against its
 * own limit. Only the real runHooks spawns processes and cannot take a scheduler; here the same composition runs
 * on marble sources so that time and teardown are exact.
 */
describe("runHooks-style fan-out (marbles)", () => {
  const fanOut = (runs: readonly { run: Observable<Run>; limit: number }[]) => forkJoin(runs.map(({ run, limit }) => run.pipe(raceTimeout(limit, onTimeout))));

  it("completes only when every run has finished, and keeps selection order whatever order they finish in", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold<Run>("-----a|");
      const b = cold<Run>("-b|");
      const c = cold<Run>("---c|");
      expectObservable(
        fanOut([
          { run: a, limit: 10 },
          { run: b, limit: 10 },
          { run: c, limit: 10 },
        ]),
      ).toBe("------(r|)", { r: ["a", "b", "c"] });
      expectSubscriptions(a.subscriptions).toBe("^-----!");
      expectSubscriptions(b.subscriptions).toBe("^-!");
      expectSubscriptions(c.subscriptions).toBe("^---!");
    });
  });

  it("starts every run at once (no concurrency cap within an event)", () => {
    testScheduler().run(({ cold, expectSubscriptions, expectObservable }) => {
      const runs = Array.from({ length: 6 }, (_, i) => cold<Run>(`--${"abcdef"[i]}|`));
      expectObservable(fanOut(runs.map((run) => ({ run, limit: 50 })))).toBe("---(r|)", { r: ["a", "b", "c", "d", "e", "f"] });
      for (const run of runs) expectSubscriptions(run.subscriptions).toBe("^--!");
    });
  });

  it("kills (unsubscribes) only the run that timed out, waits for its siblings, and puts the timeout in its place", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold<Run>("--------------s|");
      const quick = cold<Run>("-q|");
      const late = cold<Run>("-------l|");
      expectObservable(
        fanOut([
          { run: slow, limit: 4 },
          { run: quick, limit: 20 },
          { run: late, limit: 20 },
        ]),
      ).toBe("--------(r|)", { r: [{ timedOut: { limitMs: 4, elapsedMs: 4 } }, "q", "l"] });
      expectSubscriptions(slow.subscriptions).toBe("^---!");
      expectSubscriptions(quick.subscriptions).toBe("^-!");
      expectSubscriptions(late.subscriptions).toBe("^-------!");
    });
  });

  it("judges several events independently: each emits when its own runs are done", () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const e1 = [cold<Run>("----x|"), cold<Run>("-y|")];
      const e2 = [cold<Run>("-z|")];
      const events = hot("a-b|", { a: e1, b: e2 });
      const judged = events.pipe(
        mergeMap((runs) => fanOut(runs.map((run) => ({ run, limit: 10 })))),
        map((results) => results.join("")),
      );
      expectObservable(judged).toBe("----b(a|)", { a: "xy", b: "z" });
    });
  });

  it("unsubscribing the whole fan-out (a cancelled dispatch) tears down every run still going", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold<Run>("------a|");
      const b = cold<Run>("-b|");
      const c = cold<Run>("--------c|");
      expectObservable(
        fanOut([
          { run: a, limit: 20 },
          { run: b, limit: 20 },
          { run: c, limit: 20 },
        ]),
        "^--!",
      ).toBe("---");
      expectSubscriptions(a.subscriptions).toBe("^--!");
      expectSubscriptions(b.subscriptions).toBe("^-!");
      expectSubscriptions(c.subscriptions).toBe("^--!");
    });
  });
});
