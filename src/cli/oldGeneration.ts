import { setFlagsFromString } from "node:v8";

/**
 * How far V8's old generation may grow past what the last full collection left before the next one, for the rest
 * of this process: `percent` instead of V8's own factor, which on a machine with much memory goes up to 4 times.
 *
 * For `qhooks serve`: each event leaves a little garbage that survives two young collections (8 events in flight,
 * each held until its hooks answer and its record is committed), so the old generation fills with the dead between
 * full collections; with V8's factor the server kept about 11 MB alive in a heap that grew to 37 MB, and its RSS
 * after 20,000 events was 1.15 times that after 1,000 (bench S4 reads it in the middle of that saw). 30% is the
 * smallest factor V8 itself uses (on small devices). Unlike `--max-old-space-size`, V8 reads this one at each
 * full collection, so it can be set after start.
 */
export function boundOldGenerationGrowth(percent = 30): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
