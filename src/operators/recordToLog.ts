import { concatMap, type OperatorFunction } from "rxjs";
import { messageOf } from "../errors.js";
import { nullEventLog, type EventEntry, type EventLog, type EventSource, type LogEntry, type LogWarning, type SnapshotSource } from "../store/eventLog.js";
import { redactEntry } from "../redact/redactEntry.js";
import { builtInRedactor, type Redactor } from "../redact/redactor.js";
import type { Judged, Matched, Recorded } from "./stages.js";
import type { Rejected } from "./unlessRejected.js";

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
const redacted = (log: EventLog, entry: LogEntry, redactor: Redactor): LogEntry => (log === nullEventLog ? entry : redactEntry(entry, redactor));

/**
 * Appends each event as it arrives, before its hooks run. An event no hook matched
 * is recorded later, with its outcome, in one transaction. A log that cannot be written costs the record, never
 * the decision: the failure becomes a warning on the outcome.
 */
export function recordArrival(options: RecordOptions): OperatorFunction<Matched, Recorded> {
  return concatMap(async (matched): Promise<Recorded> => {
    // An async hook's result is logged against its event, so an event with one is recorded on arrival too.
    if (matched.hooks.length === 0 && !matched.background?.length) return { ...matched, seq: null, arrivalLogged: "deferred", warnings: [] };
    try {
      const appended = await options.log.append([redacted(options.log, eventEntry(matched, options), matched.snapshot.redactor)]);
      return { ...matched, seq: appended[0] ?? null, arrivalLogged: "yes", warnings: appended.warnings.map(logWarningText) };
    } catch (e) {
      const warning = `${arrivalNotRecorded(matched.valid.event)}${messageOf(e)}`;
      return { ...matched, seq: null, arrivalLogged: "failed", warnings: [warning] };
    }
  });
}

/** Appends each outcome with all its hook results; for an event without hooks, arrival and outcome together. */
export function recordOutcome(options: RecordOptions): OperatorFunction<Judged, Judged> {
  return concatMap(async (judged): Promise<Judged> => {
    let outcome = judged.outcome;
    let warning: string | null = null;
    try {
      if (judged.arrivalLogged === "yes" && judged.seq !== null) {
        const appended = await options.log.append([redacted(options.log, { kind: "outcome", ts: new Date(), eventSeq: judged.seq, outcome }, judged.snapshot.redactor)]);
        if (appended.warnings.length) outcome = { ...outcome, warnings: [...outcome.warnings, ...appended.warnings.map(logWarningText)] };
      } else if (judged.arrivalLogged !== "yes") {
        // No hook ran (deferred), or the arrival could not be written: the whole event goes in one step. After a
        // failed arrival, one attempt only: the event already waited its budget for a lock once.
        const appended = await options.log.append([redacted(options.log, { ...eventEntry(judged, options), outcome }, judged.snapshot.redactor)], judged.arrivalLogged === "failed" ? { lockWaitMs: 0 } : {});
        outcome = { ...outcome, seq: appended[0] ?? null, warnings: [...outcome.warnings, ...appended.warnings.map(logWarningText)] };
      }
    } catch (e) {
      if (judged.arrivalLogged === "failed") {
        // The arrival already failed and said so: one line for the whole event, not one per attempt, with the
        // arrival's reason (it says how long it waited; the quick second attempt would not).
        const prefix = arrivalNotRecorded(outcome.event);
        const first = outcome.warnings.find((w) => w.startsWith(prefix));
        outcome = { ...outcome, warnings: outcome.warnings.filter((w) => !w.startsWith(prefix)) };
        warning = `event log: this ${outcome.event} event and its outcome not recorded: ${first ? first.slice(prefix.length) : messageOf(e)}`;
      } else warning = `event log: outcome of this ${outcome.event} event not recorded: ${messageOf(e)}`;
    }
    if (warning !== null) outcome = { ...outcome, warnings: [...outcome.warnings, warning] };
    return { ...judged, seq: outcome.seq, outcome };
  });
}

/** Appends rejected payloads: they are listed with decision `rejected`. */
export function recordRejection(options: Omit<RecordOptions, "replayRun">): OperatorFunction<Rejected, Rejected> {
  return concatMap(async (rejected) => {
    const { rejection, arrival } = rejected;
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
    try {
      const appended = await options.log.append([redacted(options.log, entry, rejectionRedactor(options))]);
      return { ...rejected, seq: appended[0] ?? null, warnings: [...rejected.warnings, ...appended.warnings.map(logWarningText)] };
    } catch (e) {
      return { ...rejected, warnings: [...rejected.warnings, `event log: rejection not recorded: ${messageOf(e)}`] };
    }
  });
}

/**
 * A rejected payload is judged by no configuration (and loading one for it could say the settings' warnings where
 * a rejection must be one line): the built-in detectors redact it.
 */
function rejectionRedactor(_options: Omit<RecordOptions, "replayRun">): Redactor {
  return builtInRedactor;
}

const arrivalNotRecorded = (event: string) => `event log: arrival of this ${event} event not recorded: `;

/** What the log said about itself while appending (it was reopened, its projector stopped...). */
const logWarningText = (warning: LogWarning): string => `event log: ${warning.message}`;

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

function eventEntry(matched: Matched, options: RecordOptions): EventEntry {
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
    snapshot: { hash: snapshot.hash, document: snapshot.document, warnings: snapshot.warnings, sources: snapshotSources(snapshot) },
    rejection: null,
    replay: options.replayRun ? { runId: options.replayRun.runId, of: options.replayRun.of(matched) } : null,
    outcome: null,
  };
}
