import { selectHooks } from "../engine/steps/matchHooks.js";
import { EVENT_TRAITS, type Decision, type EventName } from "../schema/events.js";
import type { ExplainedHook, Explanation, HookSource, HookVerdict, SessionStart } from "../schema/explanation.js";
import type { LogDecision } from "../schema/logRecord.js";
import type { LoadAttestation } from "../schema/doctor.js";
import type { HookResult, Outcome, SkippedHook } from "../schema/outcome.js";
import { matches } from "../core/compileMatcher.js";
import { oneLineText } from "../text/oneLine.js";
import { entryKey, type ConfigView, type RawEntry } from "./loggedConfig.js";
import type { DeclaredHook, SelectedHook } from "../core/hookDescriptor.js";

/** What explain works from: the event, the configuration it was (or would be) judged by, and its outcome if any. */
export interface ExplainInput {
  readonly seq: number | null;
  readonly ts: string | null;
  readonly event: EventName;
  readonly sessionId: string | null;
  readonly matchValue: string | null;
  readonly basis: Explanation["basis"];
  readonly configHash: string | null;
  /** The configuration, entry by entry; null when the log holds no snapshot for the event. */
  readonly view: ConfigView | null;
  readonly configWarnings: readonly string[];
  /** Configured, loaded and skipped hooks of the configuration; null when it is not known. */
  readonly attestation: LoadAttestation | null;
  /** The logged outcome; null for an event never judged, or never logged. */
  readonly outcome: Outcome | null;
  /** The logged decision; null for an event that was never logged. */
  readonly decision: LogDecision | null;
  /** Why a recorded or rejected event was not judged (its rejection), for the verdicts. */
  readonly notJudged?: string;
  /** For an unlogged event: the hooks trust would skip (no hook runs, so nothing else says it). */
  readonly wouldSkip?: readonly SkippedHook[];
  /** What explain cannot know, found by the caller (no snapshot in the log...). */
  readonly unknown: readonly string[];
  /** The session's start and what loaded then (read from the log by sessionStartOf); null when not known. */
  readonly sessionStart?: SessionStart | null;
  /** The host that called an entry pinned to another (Cursor calling Claude Code's entry); none when its own host did. */
  readonly caller?: Explanation["caller"];
}

/**
 * Every hook of the configuration with one verdict each, and how the outcome was formed. Pure: everything it reads
 * is in its input (the log's snapshot and outcome, or the settings loaded now).
 */
export function explainEvent(input: ExplainInput): Explanation {
  const { event, matchValue, outcome } = input;
  const traits = EVENT_TRAITS[event];
  const field = traits.matchField;
  const results = outcome ? [...outcome.hooks] : [];
  const used = new Set<HookResult>();
  const skippedList = outcome ? [...outcome.skipped] : [...(input.wouldSkip ?? [])];
  const usedSkips = new Set<SkippedHook>();
  const decidedBy = outcome ? decidersOf(outcome) : new Set<HookResult>();

  const ran = (r: HookResult): HookVerdict => {
    used.add(r);
    return {
      kind: "ran",
      outcome: r.outcome,
      decision: r.decision,
      reason: r.reason,
      error: r.error,
      durationMs: r.durationMs,
      shadow: r.shadow === true,
      decided: decidedBy.has(r),
    };
  };
  const hooks: ExplainedHook[] = [];
  const inProcess: HookSource = { level: "in-process", file: null, plugin: null, path: null };
  for (const r of results) {
    if (r.level === "in-process")
      hooks.push({ name: r.name, command: null, event, matcher: r.matcher, mode: r.shadow ? "shadow" : "enforce", source: inProcess, verdict: ran(r) });
  }

  const view = input.view;
  if (view) {
    const selected = selectHooks(event, matchValue, view.snapshot, []);
    const specOf = new Map<DeclaredHook, SelectedHook>();
    const firstOf = new Map<DeclaredHook, DeclaredHook>();
    for (const spec of selected) {
      if (spec.kind === "in-process" || spec.declared.length === 0) continue;
      const [first, ...rest] = spec.declared;
      specOf.set(first!, spec);
      for (const other of rest) firstOf.set(other, first!);
    }
    const sourceOf = (entry: RawEntry): HookSource => {
      const s = view.sources[entry.source]!;
      return { level: s.level, file: s.display, plugin: s.plugin?.name ?? null, path: entry.path };
    };
    const hookSource = (hook: DeclaredHook): HookSource => {
      const key = view.keyOf.get(hook);
      const index = key === undefined ? -1 : Number(key.slice(0, key.indexOf("\0")));
      const s = view.sources[index];
      return { level: hook.level, file: s?.display ?? hook.file, plugin: hook.plugin?.name ?? null, path: hook.path };
    };

    for (const entry of view.entries) {
      const hook = view.hooksAt.get(entryKey(entry.source, entry.path));
      const source = sourceOf(entry);
      if (!hook) {
        hooks.push({
          name: entry.name ?? entry.command,
          command: entry.command,
          event: entry.event,
          matcher: entry.matcher,
          mode: entry.shadow ? "shadow" : "enforce",
          source,
          verdict: { kind: "invalid", warning: warningFor(entry, view) },
        });
        continue;
      }
      const base = {
        name: hook.name,
        command: hook.command,
        event: hook.event,
        matcher: hook.matcherSource,
        mode: hook.shadow ? ("shadow" as const) : ("enforce" as const),
        source,
      };
      if (hook.event !== event) {
        hooks.push({ ...base, verdict: { kind: "other-event", event: hook.event } });
        continue;
      }
      if (field !== null && !matches(hook.matcher, matchValue)) {
        hooks.push({ ...base, verdict: { kind: "no-match", matcher: hook.matcherSource ?? "", value: matchValue, field } });
        continue;
      }
      const first = firstOf.get(hook);
      if (first) {
        hooks.push({ ...base, verdict: { kind: "deduplicated", with: { name: first.name, source: hookSource(first) } } });
        continue;
      }
      const spec = specOf.get(hook);
      const result = spec && findResult(results, used, spec);
      if (result) {
        hooks.push({ ...base, verdict: ran(result) });
        continue;
      }
      const skip =
        spec &&
        skippedList.find((s) => !usedSkips.has(s) && namedAs(s.name, spec) && s.level === spec.level && (s.command === spec.command || s.command === null));
      if (skip) {
        usedSkips.add(skip);
        hooks.push({ ...base, verdict: { kind: "skipped", reason: skip.reason, message: skip.message } });
        continue;
      }
      hooks.push({ ...base, verdict: input.decision === null ? { kind: "would-run", shadow: hook.shadow } : { kind: "not-run", why: notRunWhy(input) } });
    }
  }

  // What the outcome holds that the configuration does not explain (no snapshot in the log, or it changed shape).
  for (const r of results) {
    if (used.has(r)) continue;
    hooks.push({
      name: r.name,
      command: r.command,
      event,
      matcher: r.matcher,
      mode: r.shadow ? "shadow" : "enforce",
      source: { level: r.level, file: null, plugin: null, path: null },
      verdict: ran(r),
    });
  }
  for (const s of skippedList) {
    if (usedSkips.has(s)) continue;
    hooks.push({
      name: s.name,
      command: s.command,
      event,
      matcher: s.matcher,
      mode: "enforce",
      source: { level: s.level, file: null, plugin: null, path: null },
      verdict: { kind: "skipped", reason: s.reason, message: s.message },
    });
  }

  const shadow = outcome?.shadow ?? null;
  return {
    seq: input.seq,
    ts: input.ts,
    event,
    sessionId: input.sessionId,
    matchField: field,
    matchValue,
    basis: input.basis,
    configHash: input.configHash,
    caller: input.caller ?? null,
    decision: input.decision,
    blocked: outcome?.blocked ?? false,
    reason: outcome?.reason ?? null,
    hooks,
    formed: outcome ? formation(event, outcome, decidedBy) : null,
    shadow: shadow ? { decision: shadow.decision, changed: shadow.changed, hooks: [...shadow.hooks] } : null,
    unknown: [...input.unknown],
    configWarnings: [...input.configWarnings],
    attestation: input.attestation,
    sessionStart: input.sessionStart ?? null,
  };
}

/** The run of a selected hook in the outcome: same level and name, and the same command when both say one. */
function findResult(results: readonly HookResult[], used: ReadonlySet<HookResult>, spec: SelectedHook): HookResult | undefined {
  const free = results.filter((r) => !used.has(r) && r.level === spec.level && namedAs(r.name, spec));
  return free.find((r) => r.command === spec.command) ?? free[0];
}

/** The warning that made an entry invalid: about the entry itself, else its group, else its event key. */
export function warningFor(entry: RawEntry, view: ConfigView): string {
  const display = view.sources[entry.source]!.display;
  for (const path of [entry.path, ...entry.within]) {
    const prefix = `${display}: ${path}`;
    const found = view.warnings.find((w) => w.startsWith(prefix) && /^[:.[]/.test(w.slice(prefix.length)));
    if (found) return found;
  }
  return `${display}: ${entry.path}: not loaded`;
}

function notRunWhy(input: ExplainInput): string {
  switch (input.decision) {
    case "recorded":
      return "the event was recorded (qhooks record), never judged";
    case "rejected":
      return `the event was rejected before any hook ran${input.notJudged ? `: ${oneLineText(input.notJudged, 200)}` : ""}`;
    case "unfinished":
      return "the event has no outcome in the log (its hooks were still running, or the process ended before they finished)";
    default:
      return "selected, but the logged outcome holds no run of it";
  }
}

/** The enforced hooks whose decision is the outcome's (none: no hook decided). */
function decidersOf(outcome: Outcome): Set<HookResult> {
  if (outcome.decision === "none") return new Set();
  return new Set(outcome.hooks.filter((r) => r.shadow !== true && r.decision === outcome.decision));
}

function formation(event: EventName, outcome: Outcome, decidedBy: ReadonlySet<HookResult>): NonNullable<Explanation["formed"]> {
  const rank = EVENT_TRAITS[event].decisionRank;
  const enforced = outcome.hooks.filter((r) => r.shadow !== true);
  const names = [...decidedBy].map((r) => r.name);
  const notes: string[] = [];
  const strength = (d: Decision) => (rank.indexOf(d) === -1 ? rank.length : rank.indexOf(d));
  const strongest = enforced.reduce<Decision>((best, r) => (strength(r.decision) < strength(best) ? r.decision : best), "none");

  let rule: string;
  if (enforced.length === 0) {
    rule =
      outcome.hooks.length === 0
        ? "no hook ran, so nothing was decided: the event goes on (none)"
        : "only shadow hooks ran, and they never count: the event goes on (none)";
  } else if (outcome.decision === "none" && strongest === "none") {
    rule = `no hook that ran gave a decision, so the event goes on (none); for ${event} the ranking is ${rank.join(" > ")}`;
  } else {
    rule = `${outcome.decision} is the strongest decision a hook gave; for ${event} the ranking is ${rank.join(" > ")}, the strongest wins and no hook cancels another`;
    if (names.length > 1) rule += `; the ${names.length} hooks that gave it keep all their reasons`;
  }
  if (strongest !== outcome.decision) {
    const guard = outcome.warnings.find((w) => w.includes("Stop-loop guard"));
    notes.push(guard ? `the hooks gave ${strongest}, overruled after the fold: ${guard}` : `the hooks gave ${strongest}; the outcome is ${outcome.decision}`);
  }
  for (const r of enforced) {
    if (r.outcome === "error" || r.outcome === "invalid-output" || r.outcome === "timeout") {
      notes.push(`${r.name}: ${r.outcome}${r.error ? ` (${oneLineText(r.error, 120)})` : ""}; a failed hook decides nothing and never blocks`);
    }
  }
  if (!outcome.continue) notes.push(`a hook asked the agent to stop (continue: false)${outcome.stopReason ? `: ${oneLineText(outcome.stopReason, 200)}` : ""}`);
  if (outcome.updatedInput !== null)
    notes.push("the tool input was rewritten (updatedInput); when several hooks rewrite it, the one latest in priority order wins");
  if (outcome.skipped.length)
    notes.push(`${outcome.skipped.length} selected hook${outcome.skipped.length === 1 ? "" : "s"} did not run (skipped), so did not count`);
  if (outcome.shadow) {
    const what = outcome.shadow.changed ? `enforced, they would have made it ${outcome.shadow.decision}` : "enforcing them would change nothing";
    notes.push(`shadow hooks (${outcome.shadow.hooks.join(", ")}) ran without counting; ${what}`);
  }
  return { decidedBy: names, rule, notes };
}

/** Whether a logged name is the hook's: its name, or its old default name (runs logged before short names). */
const namedAs = (name: string, spec: SelectedHook): boolean => name === spec.name || ("longName" in spec && name === spec.longName);
