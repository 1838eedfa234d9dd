import { PerformanceObserver } from "node:perf_hooks";
import type { Worker } from "node:worker_threads";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/** Whether V8's young generation (both semi-spaces) has grown to `capMb`. */
function youngGenerationReached(capMb: number): boolean {
  const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
  return young >= capMb * 1024 * 1024;
}

/** The young generation grows no more in this process (Node 20 reads the growth factor at each growth). */
function stopYoungGenerationGrowth(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
}

/**
 * Returns a check to call once per item of a long stream: once V8's young generation has grown to `capMb` (both
 * semi-spaces), it grows no more in this process.
 *
 * The commands that stream the whole log make garbage at every event, and V8 answers by doubling its young
 * generation up to 2 x 16 MB: with the old generation's slack, a replay of a million events peaked at 160 MB of
 * RSS for a live heap of about 15 MB. Node 20 fixes the young generation's limit at start (`--max-semi-space-size`,
 * which a bin cannot pass portably) but reads the growth factor at each growth, so the check sets that to 1.
 * Keeping the young generation at its initial 1 MB cost a replay a quarter of its speed; a few doublings first
 * keep the speed. The check is a counter most of the time: streams rarely yield to the event loop, so a GC
 * observer would not be called in time.
 */
export function youngGenerationCap(capMb = 8): () => void {
  let items = 0;
  let capped = false;
  return () => {
    if (capped || ++items % 1024 !== 0 || !youngGenerationReached(capMb)) return;
    stopYoungGenerationGrowth();
    capped = true;
  };
}

/** The items of a long stream, unchanged, with the cap's check as each passes. */
export async function* withYoungGenerationCap<T>(items: AsyncIterable<T>): AsyncIterable<T> {
  const check = youngGenerationCap();
  for await (const item of items) {
    check();
    yield item;
  }
}

/**
 * The same cap for a long-lived process that returns to its event loop (`qhooks serve`). A server's requests make
 * little garbage each, but a burst of them (sessions at once, each spawning hooks) made V8 double its young
 * generation to 2 x 16 MB, which it then kept for the server's life: with the old generation's slack, about 30 MB
 * more RSS after the bench's 400 guarded events at once (S4). `--max-semi-space-size` would do it from the start,
 * but it is read only when the process starts: set later, from here, it changes nothing.
 *
 * Checked after each garbage collection; once reached, the growth factor is set again whenever a thread comes
 * online, because V8 sets it back to its minimum of 2 when it makes a thread's heap (the server's log starts its
 * projector thread after its 500th record: measured, the young generation then grew from 8 to 32 MB under a cap
 * set once). Returns a function that stops holding it.
 */
export function holdYoungGeneration(capMb = 8): () => void {
  let held = false;
  const hold = (): void => {
    if (!held && !youngGenerationReached(capMb)) return;
    stopYoungGenerationGrowth();
    held = true;
  };
  const observer = new PerformanceObserver(hold);
  observer.observe({ entryTypes: ["gc"] });
  const onWorker = (worker: Worker): void => void worker.once("online", hold);
  process.on("worker", onWorker);
  hold();
  return () => {
    observer.disconnect();
    process.off("worker", onWorker);
  };
}
