import type { LogDecision, LogRecord, Origin } from "../schema/logRecord.js";
import type { HookOutcomeKind } from "../schema/outcome.js";
import type { LoadAttestation } from "../schema/doctor.js";
import { budgetStep, emptyBudget, type ReportBudget } from "./reportBudget.js";

/** How much of what is read the page shows one by one; the rest is counted. */
export interface ReportLimits {
  /** Events drawn on the timeline, each with its hooks as bars: the newest ones read. */
  readonly drawn: number;
  /** Blocked events listed in full: the newest ones read. */
  readonly blocked: number;
}

export const REPORT_LIMITS: ReportLimits = { drawn: 1000, blocked: 500 };

export interface HookTally {
  readonly name: string;
  runs: number;
  readonly outcomes: Record<HookOutcomeKind, number>;
  /** Every run's duration, in the order read. */
  readonly durations: number[];
}

export interface SessionTally {
  readonly sessionId: string | null;
  readonly projectDir: string;
  events: number;
  blocked: number;
  firstTs: string;
  lastTs: string;
  /** The session's earliest event read: the configuration it began with. */
  firstSeq: number;
  /** Where that event came from, and the host that judged it. */
  origin: Origin;
  /** The load attestation of that event's configuration; null until read (attestSessions), or when it has none. */
  attestation: LoadAttestation | null;
}

/**
 * What a report is drawn from, folded event by event (`reportStep`) from the events read newest first: the newest
 * events in full, and counts over all of them. Memory grows with the events read only by two numbers per event
 * (its time and whether it was blocked, for the activity chart) and one per hook run (for percentiles).
 */
export interface ReportData {
  /** Events folded. */
  read: number;
  /** The newest `limits.drawn` events, newest first. */
  readonly drawn: LogRecord[];
  /** The newest `limits.blocked` blocked events, newest first. */
  readonly blocked: LogRecord[];
  blockedCount: number;
  /** By session id ("" for events without one), in the order first read. */
  readonly sessions: Map<string, SessionTally>;
  /** Counts by event name, then decision. */
  readonly byEvent: Map<string, Map<LogDecision, number>>;
  /** By hook name. */
  readonly hooks: Map<string, HookTally>;
  /** Events and blocked events by the agent host whose settings judged them ("" when none did). */
  readonly byHost: Map<string, { events: number; blocked: number }>;
  /** The budget per hook (time per turn, context injected), by level and name: one tally per hook and turn. */
  readonly budget: ReportBudget;
  /** Each event's time (ms since the epoch) and whether it was blocked, in the order read. */
  readonly times: number[];
  readonly blockedTimes: number[];
}

export const emptyReport = (): ReportData => ({
  read: 0,
  drawn: [],
  blocked: [],
  blockedCount: 0,
  sessions: new Map(),
  byEvent: new Map(),
  hooks: new Map(),
  byHost: new Map(),
  budget: emptyBudget(),
  times: [],
  blockedTimes: [],
});

/**
 * One step of the fold: `data` with `record` counted in (and kept, while there is room). Events come newest first,
 * so the first ones kept are the newest. No I/O, nothing but `data` changes: the same events always give the same
 * report.
 */
export function reportStep(data: ReportData, record: LogRecord, limits: ReportLimits = REPORT_LIMITS): ReportData {
  data.read++;
  if (data.drawn.length < limits.drawn) data.drawn.push(record);
  if (record.blocked) {
    data.blockedCount++;
    if (data.blocked.length < limits.blocked) data.blocked.push(record);
  }
  const key = record.sessionId ?? "";
  const session = data.sessions.get(key);
  if (session === undefined) {
    data.sessions.set(key, {
      sessionId: record.sessionId,
      projectDir: record.projectDir,
      events: 1,
      blocked: record.blocked ? 1 : 0,
      firstTs: record.ts,
      lastTs: record.ts,
      firstSeq: record.seq,
      origin: record.origin,
      attestation: null,
    });
  } else {
    session.events++;
    if (record.seq < session.firstSeq) {
      session.firstSeq = record.seq;
      session.origin = record.origin;
    }
    if (record.blocked) session.blocked++;
    if (record.ts < session.firstTs) session.firstTs = record.ts;
    if (record.ts > session.lastTs) session.lastTs = record.ts;
  }
  const host = data.byHost.get(record.origin.host ?? "") ?? { events: 0, blocked: 0 };
  host.events++;
  if (record.blocked) host.blocked++;
  data.byHost.set(record.origin.host ?? "", host);
  const eventName = record.event ?? "(unknown)";
  let decisions = data.byEvent.get(eventName);
  if (decisions === undefined) data.byEvent.set(eventName, (decisions = new Map()));
  decisions.set(record.decision, (decisions.get(record.decision) ?? 0) + 1);
  for (const h of record.hooks) {
    let tally = data.hooks.get(h.name);
    if (tally === undefined) {
      tally = { name: h.name, runs: 0, outcomes: { success: 0, block: 0, error: 0, "invalid-output": 0, timeout: 0 }, durations: [] };
      data.hooks.set(h.name, tally);
    }
    tally.runs++;
    tally.outcomes[h.outcome]++;
    tally.durations.push(h.durationMs);
  }
  // As `hooks --usage` folds it: an event of no session, or never judged, has no turn.
  if (record.event !== null && record.sessionId !== null) budgetStep(data.budget, { event: record.event, sessionId: record.sessionId, hooks: record.hooks });
  const t = Date.parse(record.ts);
  if (!Number.isNaN(t)) {
    data.times.push(t);
    if (record.blocked) data.blockedTimes.push(t);
  }
  return data;
}

/** Nearest-rank percentile of `sorted` (ascending), as `qhooks stats` computes it; null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : null;
}

/** One bar of the activity chart: events (and blocked ones) that arrived in [from, to). */
export interface TimeBucket {
  readonly from: number;
  readonly to: number;
  readonly events: number;
  readonly blocked: number;
}

/** The events read, counted in `count` equal slices of time from the first to the last. */
export function timeBuckets(data: Pick<ReportData, "times" | "blockedTimes">, count = 60): TimeBucket[] {
  if (data.times.length === 0) return [];
  let min = Infinity;
  let max = -Infinity;
  for (const t of data.times) {
    if (t < min) min = t;
    if (t > max) max = t;
  }
  const slices = max === min ? 1 : count;
  const width = Math.max(1, (max - min) / slices);
  const index = (t: number) => Math.min(slices - 1, Math.floor((t - min) / width));
  const events = new Array<number>(slices).fill(0);
  const blocked = new Array<number>(slices).fill(0);
  for (const t of data.times) events[index(t)]!++;
  for (const t of data.blockedTimes) blocked[index(t)]!++;
  return events.map((n, i) => ({ from: min + i * width, to: i === slices - 1 ? max : min + (i + 1) * width, events: n, blocked: blocked[i]! }));
}
