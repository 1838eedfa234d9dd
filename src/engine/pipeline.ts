import { connect, defer, filter, forkJoin, from, map, merge, mergeMap, of, type Observable, type OperatorFunction } from "rxjs";
import { messageOf } from "../errors.js";
import { aggregateStep } from "./steps/aggregateOutcome.js";
import { guardStep } from "./steps/guardStopLoop.js";
import { matchStep } from "./steps/matchHooks.js";
import {
  arrivalFirst,
  arrivalWrite,
  deferred,
  outcomeWrite,
  rejectionWrite,
  commit,
  writeLater,
  writeNow,
  type LogWrite,
  type RecordOptions,
} from "./steps/recordToLog.js";
import { refuseStep } from "./steps/refuseRecursion.js";
import { joinGroup, runHookGroup, startBackground, type RunHooksOptions } from "./steps/runHooks.js";
import type { Arrival } from "../core/arrival.js";
import type { Judged, Judgement, Matched, Recorded } from "./stages.js";
import { isRejected, type Rejected } from "../core/rejected.js";
import { validateStep } from "./steps/validateEvent.js";
import { warningLines } from "../core/warnings.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { EventLog } from "../store/eventLog.js";
import { trustCommandLine } from "../trust/trustCommandLine.js";
import { createTrustPolicy, type TrustPolicy } from "../trust/trustPolicy.js";
import { trustedStopBlockCap } from "../trust/trustedStopBlockCap.js";
import { BackgroundHooks } from "../handlers/backgroundHooks.js";
import { memoryOnce, type OnceMemory } from "../handlers/once.js";
import { oneResult } from "./oneResult.js";
import { turnBudget } from "./turnBudget.js";
import type { InProcessHandler } from "../core/hookDescriptor.js";
import type { Dialect } from "../hosts/hostDialect.js";

export interface PipelineOptions extends RunHooksOptions, Omit<RecordOptions, "log"> {
  /** The host that really sent the payloads when not `dialect` (validateEvent.ts). */
  readonly payloadDialect?: Dialect | undefined;
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
 * An event still being judged after the synchronous steps: its hooks to run, or its one record to write once the
 * log can take it (another process holds the lock, or the log is not one that commits at once).
 */
type Later =
  | { readonly later: "hooks"; readonly arrival: Arrival; readonly matched: Matched }
  | { readonly later: "write"; readonly arrival: Arrival; readonly write: LogWrite<Judgement> };

const isLater = (value: Judgement | Later): value is Later => "later" in value;

/** How long events are judged synchronously in one turn of the event loop before the next ones wait for the next. */
const TURN_MS = 2;
const isDone = (value: Judgement | Later): value is Judgement => !("later" in value);
const isWrite = (value: LogWrite<Judgement> | Judgement): value is LogWrite<Judgement> => "entries" in value;

/**
 * The whole flow of judging events, one stream for as many events as come: validate, match, record the arrival,
 * run the hooks in parallel (each raced against its timeout), read each run, fold one outcome, guard against Stop
 * loops, record the outcome. Every step is made once, when the stream is set up; each event flows through them.
 *
 * An event no hook matches (and a rejected payload) is judged synchronously: validated, matched, folded and
 * written in one append that commits before the step returns, when the log can do that (SQLite with nobody else
 * holding the lock); its judgement comes out in the same turn. An event with hooks goes on to the hook group,
 * an inner observable per event: its hooks are spawned at once and wait at their gate while its arrival commits.
 * Exactly one Judgement comes out per Arrival that goes in, whatever goes wrong: an error is a value of its
 * event, never the end of the stream.
 */
export function judgeEvents(options: PipelineOptions): OperatorFunction<Arrival, Judgement> {
  const trust =
    options.trust ??
    createTrustPolicy({ homeDir: options.homeDir, projectDir: options.projectDir, env: options.baseEnv, trustCommand: trustCommandLine(options) });
  const once = options.once ?? memoryOnce();
  // Without a caller's tracker, async hooks still run, each within its timeout, and are logged if the log is open.
  const background = options.background ?? new BackgroundHooks(options.log);
  const steps = judgeSteps({ ...options, trust, once, background });
  return (arrivals) =>
    arrivals.pipe(
      // Arrivals carry their time already: the budget reads no clock.
      turnBudget(TURN_MS, (arrival) => arrival.startedAt),
      map(steps.now),
      connect((judged) => merge(judged.pipe(filter(isDone)), judged.pipe(filter(isLater), mergeMap(steps.later)))),
    );
}

/** The steps of judgeEvents, made once for its stream: `now` the synchronous part, `later` the rest of an event. */
function judgeSteps(options: PipelineOptions): { now: (arrival: Arrival) => Judgement | Later; later: (later: Later) => Observable<Judgement> } {
  const { log } = options;
  const record: RecordOptions = options;
  const validate = validateStep(options);
  const match = matchStep(options.inProcess, options.trust, options);
  const refuse = refuseStep(options.callChain);
  const aggregate = aggregateStep();
  const guard = guardStep(log, (judged) => options.stopBlockCap ?? trustedStopBlockCap(judged.snapshot, options.trust), options.source === "dispatch");

  /** The one record of an event judged in one step, or of a rejection, now if the log can, else later. */
  const written = (arrival: Arrival, write: LogWrite<Judgement>): Judgement | Later => writeNow(log, write) ?? { later: "write", arrival, write };

  const rejected = (value: Rejected): LogWrite<Judgement> => {
    const write = rejectionWrite(value, record);
    return { entries: write.entries, options: write.options, done: (appended) => rejection(write.done(appended)), failed: (e) => rejection(write.failed(e)) };
  };

  const outcome = (judged: Judged): LogWrite<Judgement> | Judgement => {
    const write = outcomeWrite(judged, record);
    if (write === null) return judgement(judged);
    return { entries: write.entries, options: write.options, done: (appended) => judgement(write.done(appended)), failed: (e) => judgement(write.failed(e)) };
  };

  const now = (arrival: Arrival): Judgement | Later => {
    try {
      const validated = validate(arrival);
      if (isRejected(validated)) return written(arrival, rejected(validated));
      const matched = refuse(match(validated));
      if (isRejected(matched)) return written(arrival, rejected(matched));
      if (arrivalFirst(matched)) return { later: "hooks", arrival, matched };
      // No hook: the outcome is folded from nothing, and no guard applies (nothing blocked).
      const write = outcome(aggregate(deferred(matched)));
      return isWrite(write) ? written(arrival, write) : write;
    } catch (e) {
      return internalFailure(arrival, e);
    }
  };

  /** The hooks of one event, spawned while its arrival commits; then the fold, the guard, the outcome's record. */
  const withHooks = (matched: Matched): Observable<Judgement> =>
    defer(() => {
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const arrived = (recorded: Recorded): Recorded => {
        open();
        startBackground(recorded, options);
        return recorded;
      };
      const arrivalRecord = defer(() => {
        const write = arrivalWrite(matched, record);
        return commit(log, write).pipe(map(arrived));
      });
      // forkJoin subscribes in order: the hooks are spawned first, then the arrival is written and opens their gate.
      return forkJoin([runHookGroup(matched, options, gate), arrivalRecord]).pipe(
        map(([group, recorded]) => aggregate(joinGroup(recorded, group))),
        mergeMap((judged) => (guard.applies(judged) ? from(guard.run(judged)) : of(judged))),
        mergeMap((judged) => {
          const write = outcome(judged);
          if (!isWrite(write)) return of(write);
          return commit(log, write);
        }),
      );
    });

  const later = (value: Later): Observable<Judgement> =>
    (value.later === "hooks" ? withHooks(value.matched) : from(writeLater(log, value.write))).pipe(
      // One judgement per arrival: a bug, or an inner stream that ends empty, costs one event, never the stream every
      // later event goes through, and never leaves a dispatch() without an answer.
      oneResult((e) => internalFailure(value.arrival, e)),
    );

  return { now, later };
}

function judgement(judged: Judged): Judgement {
  return { kind: "outcome", outcome: judged.outcome, arrival: judged.arrival, stage: judged };
}

function rejection(value: Rejected): Judgement {
  return { kind: "rejected", rejection: value.rejection, seq: value.seq, arrival: value.arrival, warnings: warningLines(value.warnings) };
}

function internalFailure(arrival: Arrival, error: unknown): Judgement {
  return {
    kind: "failed",
    arrival,
    error: `internal error while judging the event: ${messageOf(error)}`,
    cause: error,
  };
}
