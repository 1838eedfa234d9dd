import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

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
    if (capped || ++items % 1024 !== 0) return;
    const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
    if (young < capMb * 1024 * 1024) return;
    setFlagsFromString("--semi-space-growth-factor=1");
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
