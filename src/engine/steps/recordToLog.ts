import { from, of, type Observable } from "rxjs";
import { messageOf } from "../../errors.js";
import type { AppendOptions, AppendResult, EventEntry, EventLog, EventSource, LogEntry, LogWarning, SnapshotSource } from "../../store/eventLog.js";
import { redactEntry } from "../../redact/redactEntry.js";
import { builtInRedactor, type Redactor } from "../../redact/redactor.js";
import type { Judged, Matched, Ran, Recorded } from "../stages.js";
import type { Rejected } from "../../core/rejected.js";
import { warningLines, type PipelineWarning } from "../../core/warnings.js";
import { DEFAULT_DIALECT, type Dialect } from "../../hosts/hostDialect.js";
import { attestLoad } from "../loadAttestation.js";
import type { LoadAttestation } from "../../schema/doctor.js";

export interface RecordOptions {
  readonly log: EventLog;
  readonly projectDir: string;
  readonly source: EventSource;
  readonly replayRun?: { readonly runId: string; readonly of: (matched: Matched) => number } | undefined;
}

/**
 * What the log keeps: the entry with its secrets redacted, by the patterns of the event's configuration. A log
 * that keeps nothing (`--no-log`) is given the entry as it is.
 */
const redacted = (log: EventLog, entry: LogEntry, redactor: Redactor): LogEntry => (log.keepsNothing ? entry : redactEntry(entry, redactor));

/**
 * One append a step needs, and what its result (or its failure) makes of the value: built per event, written by
 * writeNow() when the log can commit at once, else by writeLater(). The entries are made (and redacted) once.
 */
export interface LogWrite<T> {
  readonly entries: () => readonly LogEntry[];
  readonly options: AppendOptions;
  readonly done: (appended: AppendResult) => T;
  readonly failed: (error: unknown) => T;
}

/** Writes now, committed before it returns: the value, or null when the log cannot commit without waiting. */
export function writeNow<T>(log: EventLog, write: LogWrite<T>): T | null {
  if (log.appendNow === undefined) return null;
  let appended: AppendResult | null;
  try {
    appended = log.appendNow(write.entries(), write.options);
  } catch (e) {
    return write.failed(e);
  }
  return appended === null ? null : write.done(appended);
}

/** Writes through the log's queue: waits for a lock, retries, and resolves to the value either way. */
export async function writeLater<T>(log: EventLog, write: LogWrite<T>): Promise<T> {
  let appended: AppendResult;
  try {
    appended = await log.append(write.entries(), write.options);
  } catch (e) {
    return write.failed(e);
  }
  return write.done(appended);
}

/** Writes now when the log can commit at once (the value in this turn), else through its queue: the one way to commit. */
export function commit<T>(log: EventLog, write: LogWrite<T>): Observable<T> {
  const committed = writeNow(log, write);
  return committed !== null ? of(committed) : from(writeLater(log, write));
}

const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
};

/**
 * Whether the event is recorded when it arrives, before its hooks (it has some, or an async one, whose result is
 * logged against its event), or later with its outcome, in one transaction. A log that cannot be written costs the
 * record, never the decision: the failure becomes a warning on the outcome.
 */
export const arrivalFirst = (matched: Matched): boolean => matched.hooks.length > 0 || (matched.background?.length ?? 0) > 0;

/**
 * An event recorded with its outcome, in one step: no hook ran. (A flat literal: every event without hooks passes here, and V8
 * builds an object spread into a literal field by field, several times slower.)
 */
export const deferred = (matched: Matched): Ran => ({
  arrival: matched.arrival,
  valid: matched.valid,
  snapshot: matched.snapshot,
  hooks: matched.hooks,
  skipped: matched.skipped,
  selectionWarnings: matched.selectionWarnings,
  background: matched.background,
  seq: null,
  arrivalLogged: "deferred",
  warnings: [],
  judged: [],
  env: undefined,
});

/** The arrival of an event with hooks. */
export function arrivalWrite(matched: Matched, options: RecordOptions): LogWrite<Recorded> {
  return {
    entries: once(() => [redacted(options.log, eventEntry(matched, options), matched.snapshot.redactor)]),
    options: {},
    done: (appended) => ({ ...matched, seq: appended[0] ?? null, arrivalLogged: "yes", warnings: appended.warnings.map(logWarning) }),
    failed: (e) => ({
      ...matched,
      seq: null,
      arrivalLogged: "failed",
      warnings: [{ kind: "arrival-not-recorded", event: matched.valid.event, why: messageOf(e) }],
    }),
  };
}

/**
 * The outcome's append: alone after its arrival, or with the event in one record when no hook ran (deferred) or
 * the arrival could not be written. Null when there is nothing to write (a log that keeps nothing gave no seq).
 */
export function outcomeWrite(judged: Judged, options: RecordOptions): LogWrite<Judged> | null {
  const { outcome } = judged;
  // A log that keeps nothing gives no seq and says nothing: the event is judged as it is.
  if (options.log.keepsNothing) return null;
  if (judged.arrivalLogged === "yes") {
    if (judged.seq === null) return null;
    const seq = judged.seq;
    return {
      entries: once(() => [redacted(options.log, { kind: "outcome", ts: new Date(), eventSeq: seq, outcome }, judged.snapshot.redactor)]),
      options: {},
      done: (appended) =>
        appended.warnings.length
          ? withWarnings(judged, outcome.seq, [...judged.warnings, ...appended.warnings.map(logWarning)])
          : { ...judged, seq: outcome.seq },
      failed: (e) => withWarnings(judged, outcome.seq, [...judged.warnings, { kind: "outcome-not-recorded", event: outcome.event, why: messageOf(e) }]),
    };
  }
  // No hook ran (deferred), or the arrival could not be written: the whole event goes in one step. After a failed
  // arrival, one attempt only: the event already waited its budget for a lock once.
  return {
    entries: once(() => [redacted(options.log, eventEntry(judged, options, outcome), judged.snapshot.redactor)]),
    options: judged.arrivalLogged === "failed" ? { lockWaitMs: 0 } : {},
    done: (appended) =>
      withWarnings(judged, appended[0] ?? null, appended.warnings.length === 0 ? judged.warnings : [...judged.warnings, ...appended.warnings.map(logWarning)]),
    failed: (e) => {
      if (judged.arrivalLogged !== "failed")
        return withWarnings(judged, outcome.seq, [...judged.warnings, { kind: "outcome-not-recorded", event: outcome.event, why: messageOf(e) }]);
      // The arrival already failed and said so: one line for the whole event, not one per attempt, with the
      // arrival's reason (it says how long it waited; the quick second attempt would not).
      const arrival = judged.warnings.find((w) => w.kind === "arrival-not-recorded");
      const rest = judged.warnings.filter((w) => w.kind !== "arrival-not-recorded");
      const why = arrival?.kind === "arrival-not-recorded" ? arrival.why : messageOf(e);
      return withWarnings(judged, outcome.seq, [...rest, { kind: "event-not-recorded", event: outcome.event, why }]);
    },
  };
}

/** The judged event with its seq and these warnings, the outcome's lines made from them. */
function withWarnings(judged: Judged, seq: number | null, warnings: readonly PipelineWarning[]): Judged {
  if (seq === judged.outcome.seq && warnings.length === judged.warnings.length) return judged.seq === seq ? judged : { ...judged, seq };
  return { ...judged, seq, warnings, outcome: { ...judged.outcome, seq, warnings: warnings.length === 0 ? [] : warningLines(warnings) } };
}

/** A rejected payload's record: it is listed with decision `rejected`. */
export function rejectionWrite(rejected: Rejected, options: Omit<RecordOptions, "replayRun">): LogWrite<Rejected> {
  const { rejection, arrival } = rejected;
  return {
    entries: once(() => {
      const entry: EventEntry = {
        kind: "event",
        ts: arrival.receivedAt,
        source: options.source,
        event: rejection.event,
        sessionId: rejection.sessionId,
        matchValue: null,
        projectDir: options.projectDir,
        payload: rejection.raw,
        snapshot: null,
        rejection: rejection.error,
        replay: null,
        outcome: null,
      };
      return [redacted(options.log, entry, rejectionRedactor(options))];
    }),
    options: {},
    done: (appended) => ({ ...rejected, seq: appended[0] ?? null, warnings: [...rejected.warnings, ...appended.warnings.map(logWarning)] }),
    failed: (e) => ({ ...rejected, warnings: [...rejected.warnings, { kind: "rejection-not-recorded", why: messageOf(e) }] }),
  };
}

/**
 * A rejected payload is judged by no configuration (and loading one for it could say the settings' warnings where
 * a rejection must be one line): the built-in detectors redact it.
 */
function rejectionRedactor(_options: Omit<RecordOptions, "replayRun">): Redactor {
  return builtInRedactor;
}

/** What the log said about itself while appending (it was reopened, its projector stopped...). */
const logWarning = (warning: LogWarning): PipelineWarning => ({ kind: "log", of: warning.kind, message: warning.message });

/** The files a configuration was read from, as the log keeps them with its snapshot. */
function snapshotSources(snapshot: Matched["snapshot"]): readonly SnapshotSource[] {
  // Made once per snapshot: every event judged by it carries the same list.
  const known = sourcesOf.get(snapshot);
  if (known) return known;
  const sources = snapshot.sources.map((s) => ({
    level: s.level,
    file: s.path,
    display: s.display,
    state: s.state,
    ...(s.plugin ? { plugin: { name: s.plugin.name, root: s.plugin.root, dataDir: s.plugin.dataDir } } : {}),
  }));
  sourcesOf.set(snapshot, sources);
  return sources;
}
const sourcesOf = new WeakMap<Matched["snapshot"], readonly SnapshotSource[]>();

/**
 * The configuration's load attestation, made once per snapshot (trust's verdicts are in each outcome), kept when an
 * entry did not load: when every entry loaded, the logged hooks sections say it all (explain counts them), and the
 * record stays as it always was.
 */
function attestationOf(snapshot: Matched["snapshot"]): { attestation?: LoadAttestation } {
  const known = attestations.get(snapshot);
  if (known) return known;
  const made = attestLoad(snapshot, null);
  const kept = made.skipped.length === 0 && made.unreadFiles.length === 0 ? {} : { attestation: made };
  attestations.set(snapshot, kept);
  return kept;
}
const attestations = new WeakMap<Matched["snapshot"], { attestation?: LoadAttestation }>();

/** The host, kept with the configuration when it is not the default: a default one's records stay as they always were. */
const dialectOf = (snapshot: Matched["snapshot"]): { dialect?: Dialect } => (snapshot.dialect === DEFAULT_DIALECT ? {} : { dialect: snapshot.dialect });

function eventEntry(matched: Matched, options: RecordOptions, outcome: EventEntry["outcome"] = null): EventEntry {
  const { valid, snapshot, arrival } = matched;
  return {
    kind: "event",
    ts: arrival.receivedAt,
    source: options.source,
    event: valid.event,
    sessionId: valid.sessionId,
    matchValue: valid.matchValue,
    projectDir: options.projectDir,
    payload: valid.json,
    snapshot: {
      hash: snapshot.hash,
      document: snapshot.document,
      warnings: snapshot.warnings,
      sources: snapshotSources(snapshot),
      ...dialectOf(snapshot),
      ...attestationOf(snapshot),
    },
    rejection: null,
    replay: options.replayRun ? { runId: options.replayRun.runId, of: options.replayRun.of(matched) } : null,
    outcome,
  };
}
