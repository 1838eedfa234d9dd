import { isBlockingDecision } from "../schema/events.js";
import type { Outcome } from "../schema/outcome.js";
import { redactedFields } from "../redact/redactor.js";
import type { ReplayChange, ReplayHookFailure, ReplayResult, ReplaySide, ReplaySummary } from "../schema/replay.js";
import { canonicalJson } from "../json/canonicalHash.js";
import type { AuditLog, StoredEvent } from "../store/eventLog.js";

/** What a replay says about each event (compared with what was decided then) and about the whole run. */

export function emptySummary(runId: string): ReplaySummary {
  return {
    runId,
    events: 0,
    changed: 0,
    newlyBlocked: 0,
    newlyAllowed: 0,
    skipped: 0,
    hookErrors: 0,
    timeouts: 0,
    skippedEvents: 0,
    hooksSkipped: 0,
    hooksStubbed: 0,
  };
}

export function addToSummary(summary: ReplaySummary, r: ReplayResult): void {
  summary.events++;
  if (r.changed) summary.changed++;
  if (r.skipEvent) summary.skippedEvents = (summary.skippedEvents ?? 0) + 1;
  else if (r.skipped !== null) summary.skipped++;
  summary.hooksSkipped = (summary.hooksSkipped ?? 0) + (r.hooksSkipped?.length ?? 0);
  summary.hooksStubbed = (summary.hooksStubbed ?? 0) + (r.hooksStubbed?.length ?? 0);
  if (r.after.decision !== null && !r.before.blocked && r.after.blocked) summary.newlyBlocked++;
  if (r.after.decision !== null && r.before.blocked && !r.after.blocked) summary.newlyAllowed++;
  summary.hookErrors += r.hookErrors;
  summary.timeouts += r.timeouts;
}

/** `recorded` (never judged) and `unfinished` (never finished) compare as `none`. */
const comparable = (decision: string | null) => (decision === "recorded" || decision === "unfinished" ? "none" : decision);

/** What the live outcome said besides its decision: whether the agent went on, and the tool input it got. */
interface LiveEffects {
  readonly continue: boolean;
  readonly updatedInput: unknown;
}

const NO_EFFECTS: LiveEffects = { continue: true, updatedInput: null };

/** Read only for events whose hooks ran live: without a hook, the agent went on with its own input. */
export async function liveEffects(log: AuditLog, record: StoredEvent): Promise<LiveEffects> {
  if (record.hooks.length === 0) return NO_EFFECTS;
  const outcome = (await log.event(record.seq))?.outcome;
  return outcome ? { continue: outcome.continue, updatedInput: outcome.updatedInput } : NO_EFFECTS;
}

/** `outcome` and `live` are null when nothing was judged (match only, not replayable). */
export function compare(record: StoredEvent, after: ReplaySide, outcome: Outcome | null, live: LiveEffects | null): ReplayResult {
  const redacted = redactedFields(record.payload);
  const before = sideOf(record);
  const changes: ReplayChange[] = [];
  if (outcome !== null && live !== null) {
    if (comparable(after.decision) !== comparable(record.decision)) changes.push("decision");
    if (after.blocked !== before.blocked) changes.push("blocked");
    if (outcome.continue !== live.continue) changes.push("continue");
    if (canonicalJson(outcome.updatedInput ?? null) !== canonicalJson(live.updatedInput ?? null)) changes.push("updatedInput");
  }
  const failures = (outcome?.hooks ?? []).flatMap((h): ReplayHookFailure[] =>
    h.outcome === "error" || h.outcome === "invalid-output" || h.outcome === "timeout"
      ? [
          {
            name: h.name,
            outcome: h.outcome,
            error: firstLine(h.error ?? (h.outcome === "timeout" ? `timed out after ${(h.durationMs / 1000).toFixed(1)} s` : h.outcome)),
          },
        ]
      : [],
  );
  return {
    seq: record.seq,
    event: record.event,
    sessionId: record.sessionId,
    matchValue: record.matchValue,
    before,
    after,
    changed: changes.length > 0,
    ...(changes.length ? { changes } : {}),
    skipped: null,
    hookErrors: failures.filter((f) => f.outcome !== "timeout").length,
    timeouts: failures.filter((f) => f.outcome === "timeout").length,
    ...(failures.length ? { hookFailures: failures } : {}),
    ...(redacted.length ? { redacted } : {}),
  };
}

const firstLine = (text: string): string => text.split("\n", 1)[0]!.trim();

/** The hooks qhooks.replay kept from running for this event, on its result. */
export function withPlan(result: ReplayResult, plan: Plan): ReplayResult {
  return {
    ...result,
    ...(plan.skipped.length ? { hooksSkipped: plan.skipped } : {}),
    ...(plan.stubbed.length ? { hooksStubbed: plan.stubbed } : {}),
  };
}

export function skipped(record: StoredEvent, why: string): ReplayResult {
  return { ...compare(record, { decision: null, blocked: false, reason: null, hooks: [] }, null, null), skipped: why };
}

/** What an event's replay runs: the hooks that match, those qhooks.replay skips or stubs, and those that run. */
export interface Plan {
  readonly all: string[];
  readonly skipped: string[];
  readonly stubbed: string[];
  readonly runs: string[];
}

export const NO_PLAN: Plan = { all: [], skipped: [], stubbed: [], runs: [] };

const sideOf = (o: Pick<StoredEvent, "decision" | "blocked" | "reason" | "hooks">): ReplaySide => ({
  decision: o.decision,
  blocked: o.blocked || isBlockingDecision(o.decision),
  reason: o.reason,
  hooks: [...o.hooks],
});

export const outcomeSide = (o: Outcome): ReplaySide => sideOf({ ...o, hooks: o.hooks.map((h) => h.name) });
