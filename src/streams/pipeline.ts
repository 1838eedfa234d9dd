import { catchError, map, mergeMap, of, pipe, type Observable, type OperatorFunction } from "rxjs";
import { messageOf } from "../errors.js";
import { aggregateOutcome } from "../operators/aggregateOutcome.js";
import { DEFAULT_STOP_BLOCK_CAP, guardStopLoop } from "../operators/guardStopLoop.js";
import { matchHooks } from "../operators/matchHooks.js";
import { recordArrival, recordOutcome, recordRejection, type RecordOptions } from "../operators/recordToLog.js";
import { refuseRecursion } from "../operators/refuseRecursion.js";
import { runHooks, type RunHooksOptions } from "../operators/runHooks.js";
import type { Arrival, InProcessHandler, Judged, Judgement } from "../operators/stages.js";
import { isRejected, unlessRejected, type Rejected } from "../operators/unlessRejected.js";
import { validateEvent } from "../operators/validateEvent.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { EventLog } from "../store/eventLog.js";
import { trustCommandLine } from "../trust/trustCommandLine.js";
import { createTrustPolicy, type TrustPolicy } from "../trust/trustPolicy.js";
import { BackgroundHooks } from "../handlers/backgroundHooks.js";
import { memoryOnce, type OnceMemory } from "../handlers/once.js";

export interface PipelineOptions extends RunHooksOptions, Omit<RecordOptions, "log"> {
  readonly log: EventLog;
  /** The configuration in force; called once per event, when it arrives. */
  readonly snapshot: () => SettingsSnapshot;
  readonly inProcess?: () => readonly InProcessHandler[];
  /** QHOOKS_STOP_BLOCK_CAP; null: the event's settings snapshot (qhooks.stopBlockCap), else the default, decide. */
  readonly stopBlockCap: number | null;
  /**
   * Which hooks of the project, local settings and plugins may run (`qhooks.requireTrust`, QHOOKS_REQUIRE_TRUST);
   * by default the user's trust store for `projectDir`.
   */
  readonly trust?: TrustPolicy;
  /** Which `once: true` hooks ran in which session; memory of this pipeline by default. */
  readonly once?: OnceMemory;
}

/**
 * The whole flow of judging an event, one event at a time and many events at once: validate, match, record the arrival,
 * run the hooks in parallel (each raced against its timeout), read each run, fold one outcome, guard against Stop
 * loops, record the outcome. Exactly one Judgement comes out per Arrival that goes in, whatever goes wrong.
 */
export function judgeEvents(options: PipelineOptions): OperatorFunction<Arrival, Judgement> {
  const trust = options.trust ?? createTrustPolicy({ homeDir: options.homeDir, projectDir: options.projectDir, env: options.baseEnv, trustCommand: trustCommandLine(options) });
  const once = options.once ?? memoryOnce();
  // Without a caller's tracker, async hooks still run, each within its timeout, and are logged if the log is open.
  const background = options.background ?? new BackgroundHooks(options.log);
  return mergeMap((arrival) => judgeOne(arrival, { ...options, trust, once, background }));
}

function judgeOne(arrival: Arrival, options: PipelineOptions): Observable<Judgement> {
  const record: RecordOptions = options;
  return of(arrival).pipe(
    validateEvent(options),
    unlessRejected(matchHooks(options.inProcess, options.trust, options)),
    unlessRejected(refuseRecursion(options.callChain)),
    unlessRejected(
      pipe(
        recordArrival(record),
        runHooks(options),
        aggregateOutcome(),
        guardStopLoop(options.log, (judged) => options.stopBlockCap ?? judged.snapshot.stopBlockCap ?? DEFAULT_STOP_BLOCK_CAP, options.source === "dispatch"),
        recordOutcome(record),
      ),
    ),
    unlessJudged(recordRejection(record)),
    map(toJudgement),
    // A bug must cost one event, never the stream every later event goes through.
    catchError((e: unknown) => of(internalFailure(arrival, e))),
  );
}

function unlessJudged(operator: OperatorFunction<Rejected, Rejected>): OperatorFunction<Judged | Rejected, Judged | Rejected> {
  return mergeMap((value) => (isRejected(value) ? of(value).pipe(operator) : of(value)));
}

function toJudgement(value: Judged | Rejected): Judgement {
  return isRejected(value)
    ? { kind: "rejected", rejection: value.rejection, seq: value.seq, arrival: value.arrival, warnings: value.warnings }
    : { kind: "outcome", outcome: value.outcome, arrival: value.arrival, stage: value };
}

function internalFailure(arrival: Arrival, error: unknown): Judgement {
  return {
    kind: "failed",
    arrival,
    error: `internal error while judging the event: ${messageOf(error)}`,
    cause: error,
  };
}
