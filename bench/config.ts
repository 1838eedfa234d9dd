/** Sizes and repetitions of one bench run: the full suite, or `--quick` (about a minute, for CI). */
export interface BenchConfig {
  readonly quick: boolean;
  /** Case 1: CLI runs of each kind. */
  readonly startupReps: number;
  /** Case 2: dispatches with one hook (each side). */
  readonly oneHookReps: number;
  /** Case 3: dispatches with ten hooks (each side). */
  readonly tenHookReps: number;
  /** Case 4: events per sample, samples. */
  readonly noMatchEvents: number;
  readonly noMatchEventsNoLog: number;
  readonly noMatchReps: number;
  /** Case 5: batches of BUILD_BATCH appended per sample side; events of the audit log; query repetitions. */
  readonly appendBatches: number;
  readonly logEvents: number;
  readonly queryReps: number;
  readonly summaryReps: number;
  /** Case 5f: events behind the projections (one journal record each), repetitions; 5g/5h: flood length. */
  readonly catchUpEvents: number;
  readonly catchUpReps: number;
  readonly floodMs: number;
  /** Case 6: events replayed match-only and with a hook; samples. */
  readonly replayMatchEvents: number;
  readonly replayHookEvents: number;
  readonly replayReps: number;
  /** Case S3: events per session (8 sessions at once); S4: events the server has judged when its RSS is read again. */
  readonly serverSessionEvents: number;
  readonly serverRssEvents: number;
  /** Watchdog: fresh processes per variant. */
  readonly watchdogProcesses: number;
}

export const FULL: BenchConfig = {
  quick: false,
  startupReps: 30,
  oneHookReps: 300,
  tenHookReps: 100,
  noMatchEvents: 5_000,
  noMatchEventsNoLog: 20_000,
  noMatchReps: 7,
  appendBatches: 10,
  logEvents: 1_000_000,
  queryReps: 50,
  summaryReps: 5,
  catchUpEvents: 100_000,
  catchUpReps: 3,
  floodMs: 3_000,
  replayMatchEvents: 10_000,
  replayHookEvents: 600,
  replayReps: 3,
  watchdogProcesses: 12,
  serverSessionEvents: 500,
  serverRssEvents: 100_000,
};

export const QUICK: BenchConfig = {
  quick: true,
  startupReps: 6,
  oneHookReps: 40,
  tenHookReps: 15,
  noMatchEvents: 1_000,
  noMatchEventsNoLog: 5_000,
  noMatchReps: 3,
  appendBatches: 2,
  logEvents: 20_000,
  queryReps: 10,
  summaryReps: 2,
  catchUpEvents: 10_000,
  catchUpReps: 1,
  floodMs: 1_000,
  replayMatchEvents: 2_000,
  replayHookEvents: 100,
  replayReps: 2,
  watchdogProcesses: 3,
  serverSessionEvents: 50,
  serverRssEvents: 5_000,
};
