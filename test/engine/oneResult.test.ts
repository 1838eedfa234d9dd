import { expect } from "chai";
import { EMPTY, NEVER, Subject, lastValueFrom, of, throwError, toArray } from "rxjs";
import { oneResult } from "../../src/engine/oneResult.js";

const failed = (e: unknown) => `failed: ${(e as Error).message}`;

describe("streams: oneResult, exactly one judgement per event", () => {
  it("passes the one value of an event's stream", async () => {
    expect(await lastValueFrom(of("judged").pipe(oneResult(failed), toArray()))).to.deep.equal(["judged"]);
  });

  it("an inner stream that ends without a value is a failure of its event, not an event without an answer", async () => {
    expect(await lastValueFrom(EMPTY.pipe(oneResult(failed), toArray()))).to.deep.equal(["failed: ended without a result"]);
  });

  it("an error is a failure value of its event; the stream goes on", async () => {
    expect(await lastValueFrom(throwError(() => new Error("boom")).pipe(oneResult(failed), toArray()))).to.deep.equal(["failed: boom"]);
  });

  it("takes the first value only, and lets go of the inner stream then", () => {
    const inner = new Subject<string>();
    const seen: string[] = [];
    let completed = false;
    inner.pipe(oneResult(failed)).subscribe({ next: (v) => seen.push(v), complete: () => (completed = true) });
    inner.next("first");
    inner.next("second");
    expect(seen).to.deep.equal(["first"]);
    expect(completed).to.equal(true);
    expect(inner.observed).to.equal(false);
  });

  it("waits for a stream that has not ended (a running hook): no value is made up", () => {
    const seen: string[] = [];
    const subscription = NEVER.pipe(oneResult(failed)).subscribe((v) => seen.push(v));
    expect(seen).to.deep.equal([]);
    subscription.unsubscribe();
  });
});
