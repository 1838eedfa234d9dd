import type { Outcome } from "../../schema/outcome.js";
import { foldVerdicts, nothingFolded, shadowOutcome } from "../../core/foldOutcome.js";
import { line, warningLines, type PipelineWarning } from "../../core/warnings.js";
import type { Judged, Ran } from "../stages.js";
import type { HookResult } from "../../schema/outcome.js";
import type { SettingsSnapshot } from "../../settings/loadSettings.js";
import { isUserTier } from "../../settings/settingsSources.js";
import type { BudgetSettings } from "../../schema/settings.js";
import type { JudgedHook } from "../../core/hookRun.js";
import { foldBudget, overBudget as overrunsOf } from "../../core/hookBudget.js";

/** Folds the hooks' results of one event into its one outcome; made once for a stream. */
export function aggregateStep(now: () => number = () => performance.now()): (ran: Ran) => Judged {
  return (ran) => {
    // Shadow hooks never count: the outcome is folded from the others; folded with them too, it says what enforcing
    // them would change.
    const enforced = ran.judged.length === 0 ? ran.judged : ran.judged.filter((j) => j.result.shadow !== true);
    const userTier = ran.judged.length === 0 ? undefined : userTierOf(ran.snapshot);
    const folded = ran.judged.length === 0 ? nothingFolded() : foldVerdicts(ran.valid.event, enforced, userTier);
    const shadow = enforced.length === ran.judged.length ? undefined : shadowOutcome(ran.valid.event, ran.judged, folded, userTier);
    const overBudget = ran.snapshot.budget ? budgetWarnings(ran.valid.event, enforced, ran.snapshot.budget) : [];
    const warnings: PipelineWarning[] =
      ran.selectionWarnings.length === 0 && folded.warnings.length === 0 && overBudget.length === 0
        ? [...ran.warnings]
        : [...ran.selectionWarnings.map(line), ...ran.warnings, ...folded.warnings.map(line), ...overBudget];
    // A flat literal in the contract's key order: every event passes here, and V8 fills a spread field by field.
    // Only an event with shadow hooks pays a spread, to put `shadow` in its place before `env`.
    const plain: Outcome = {
      event: ran.valid.event,
      sessionId: ran.valid.sessionId,
      seq: ran.seq,
      decision: folded.decision,
      blocked: folded.blocked,
      reason: folded.reason,
      continue: folded.continue,
      stopReason: folded.stopReason,
      systemMessages: folded.systemMessages,
      additionalContext: folded.additionalContext,
      updatedInput: folded.updatedInput,
      suppressOutput: folded.suppressOutput,
      configHash: ran.snapshot.hash,
      durationMs: Math.round((now() - ran.arrival.startedAt) * 10) / 10,
      hooks: ran.judged.length === 0 ? [] : ran.judged.map((j) => j.result),
      skipped: ran.skipped.length === 0 ? [] : [...ran.skipped],
      env: ran.env ? { ...ran.env } : {},
      warnings: warnings.length === 0 ? [] : warningLines(warnings),
    };
    const outcome: Outcome = shadow ? withShadow(plain, shadow) : plain;
    return {
      arrival: ran.arrival,
      valid: ran.valid,
      snapshot: ran.snapshot,
      hooks: ran.hooks,
      skipped: ran.skipped,
      selectionWarnings: ran.selectionWarnings,
      background: ran.background,
      seq: ran.seq,
      arrivalLogged: ran.arrivalLogged,
      warnings,
      outcome,
    };
  };
}

function withShadow({ env, warnings, ...head }: Outcome, shadow: NonNullable<Outcome["shadow"]>): Outcome {
  return { ...head, shadow, env, warnings };
}

/**
 * Which results come from the user's own hooks: the user level, a `--settings` file outside the project, and
 * in-process handlers (the embedding program's own code). A project's, local, plugin hook is of lower trust.
 */
function userTierOf(snapshot: SettingsSnapshot): (result: HookResult) => boolean {
  const levels = new Set(snapshot.sources.filter(isUserTier).map((s) => s.level));
  return (result) => result.level === "in-process" || levels.has(result.level);
}

/**
 * At run time, the budget is checked on the event at hand: a hook whose runs in this one event already cross a
 * per-turn limit crossed it for the turn (a whole turn's sum is the read side's, `hooks --usage`). The same fold.
 */
function budgetWarnings(event: Ran["valid"]["event"], judged: readonly JudgedHook[], budget: BudgetSettings): PipelineWarning[] {
  if (judged.length === 0) return [];
  const usage = foldBudget([{ event, sessionId: "", hooks: judged.map((j) => j.result) }]);
  return overrunsOf(usage, budget).map((overrun) => ({ kind: "over-budget", overrun }));
}
