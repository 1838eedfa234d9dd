import { expect } from "chai";
import { GroupCommit, type Attempt } from "../../src/store/journal/groupCommit.js";

class Busy extends Error {}

/** A committer that records each batch it is given, and fails while `busyFor` says so. */
function committer(busyFor = 0) {
  const batches: number[][] = [];
  const committed = new Set<number>();
  let busy = busyFor;
  const group = new GroupCommit<number, string>({
    commit: async (batch): Promise<Attempt<string>> => {
      batches.push([...batch]);
      if (busy-- > 0) return { ok: false, error: new Busy("locked") };
      if (batch.includes(13)) return { ok: false, error: new Error("disk full") };
      for (const n of batch) committed.add(n);
      return { ok: true, results: batch.map((n) => `#${n}`) };
    },
    isBusy: (e) => e instanceof Busy,
    gaveUp: (_e, waited) => new Error(`gave up after ${waited} ms`),
    failed: (e) => new Error(`failed: ${(e as Error).message}`),
    maxBatch: 4,
  });
  return { group, batches, committed };
}

describe("group commit", () => {
  it("requests made in the same turn share one transaction, in order, at most maxBatch each; each resolves to its own result once committed", async () => {
    const { group, batches, committed } = committer();
    const resolvedBeforeCommit: number[] = [];
    const all = [1, 2, 3, 4, 5, 6].map((n) =>
      group.submit(n, 1000).then((r) => {
        if (!committed.has(n)) resolvedBeforeCommit.push(n);
        return r;
      }),
    );
    expect(await Promise.all(all)).to.deep.equal(["#1", "#2", "#3", "#4", "#5", "#6"]);
    expect(batches).to.deep.equal([
      [1, 2, 3, 4],
      [5, 6],
    ]);
    expect(resolvedBeforeCommit).to.deep.equal([]);
  });

  it("a request made while a transaction is under way goes in the next one", async () => {
    const { group, batches } = committer();
    const first = group.submit(1, 1000);
    await Promise.resolve();
    await Promise.resolve();
    const second = group.submit(2, 1000);
    await Promise.all([first, second]);
    expect(batches).to.deep.equal([[1], [2]]);
  });

  it("while the lock is busy, requests wait within their budget and are retried together with newer ones; one without budget is told at once", async () => {
    const { group, batches } = committer(2);
    const patient = group.submit(1, 5_000);
    const impatient = group.submit(2, 0);
    const late = new Promise<string>((resolve) => setTimeout(() => resolve(group.submit(3, 5_000)), 1));
    const [a, b, c] = await Promise.allSettled([patient, impatient, late]);
    expect(a).to.deep.equal({ status: "fulfilled", value: "#1" });
    expect(b.status).to.equal("rejected");
    expect((b as PromiseRejectedResult).reason.message).to.match(/^gave up after \d+ ms$/);
    expect(c).to.deep.equal({ status: "fulfilled", value: "#3" });
    expect(batches[0]).to.deep.equal([1, 2]);
    expect(batches.at(-1)).to.include.members([1, 3]);
  });

  it("a failure that is not a lock fails its batch only", async () => {
    const { group } = committer();
    const doomed = [12, 13].map((n) => group.submit(n, 1000));
    const results = await Promise.allSettled(doomed);
    expect(results.map((r) => r.status)).to.deep.equal(["rejected", "rejected"]);
    expect((results[0] as PromiseRejectedResult).reason.message).to.equal("failed: disk full");
    expect(await group.submit(14, 1000)).to.equal("#14");
    await group.settled();
  });
});
