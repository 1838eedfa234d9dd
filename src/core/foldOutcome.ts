import { oneLineText } from "../text/oneLine.js";
import { canonicalJson } from "../json/canonicalHash.js";
import { EVENT_TRAITS, isBlockingDecision, type Decision, type EventName } from "../schema/events.js";
import type { HookResult, Outcome } from "../schema/outcome.js";
import type { JudgedHook } from "./hookRun.js";

/** What no hook at all folds into: no decision, nothing to say. */
export const nothingFolded = (): FoldedVerdicts => ({
  decision: "none",
  blocked: false,
  reason: null,
  continue: true,
  stopReason: null,
  systemMessages: [],
  additionalContext: [],
  updatedInput: null,
  suppressOutput: false,
  warnings: [],
});

/** What the outcome would have been with the shadow hooks enforced, and whether that differs from the real one. */
export function shadowOutcome(
  event: EventName,
  all: readonly JudgedHook[],
  folded: FoldedVerdicts,
  isUserTier?: (result: HookResult) => boolean,
): NonNullable<Outcome["shadow"]> {
  const enforced = foldVerdicts(event, all, isUserTier);
  const changed =
    enforced.decision !== folded.decision ||
    enforced.continue !== folded.continue ||
    canonicalJson(enforced.updatedInput) !== canonicalJson(folded.updatedInput);
  return {
    hooks: all.filter((j) => j.result.shadow === true).map((j) => j.result.name),
    decision: enforced.decision,
    blocked: enforced.blocked,
    reason: enforced.reason,
    continue: enforced.continue,
    changed,
  };
}

export type FoldedVerdicts = Omit<Outcome, "event" | "sessionId" | "seq" | "configHash" | "durationMs" | "hooks" | "skipped" | "shadow" | "env">;

/**
 * The pure fold behind aggregateOutcome: hooks in selection order in, one decision out. No hook cancels another;
 * the strongest decision wins, and every message is kept.
 *
 * `isUserTier` says which hooks are of the user's own files (user level, a `--settings` file outside the project,
 * in-process handlers). When given, a lower-trust hook's (project, local, plugin) `updatedInput` is refused while a
 * user-tier hook ran for the event: that hook judged the input before the rewrite, never the rewrite itself, so
 * letting the rewrite through would let a checked-in file get past the user's guards. Without it, every hook is
 * of one tier (a library caller's fold).
 */
export function foldVerdicts(event: EventName, judged: readonly JudgedHook[], isUserTier?: (result: HookResult) => boolean): FoldedVerdicts {
  const rank = EVENT_TRAITS[event].decisionRank;
  const strength = (d: Decision) => {
    const i = rank.indexOf(d);
    return i === -1 ? rank.length : i;
  };
  const warnings = judged.flatMap((j) => j.warnings);

  let decision: Decision = "none";
  for (const { verdict } of judged) if (strength(verdict.decision) < strength(decision)) decision = verdict.decision;
  const blocked = isBlockingDecision(decision);
  const reasons = judged.filter((j) => decision !== "none" && j.verdict.decision === decision && j.verdict.reason !== null).map((j) => j.verdict.reason!);

  const stoppers = judged.filter((j) => !j.verdict.continue);
  const stopReasons = stoppers.flatMap((j) => (j.verdict.stopReason === null ? [] : [j.verdict.stopReason]));

  // Later hooks (higher-priority levels) win; a hook that blocked rewrote nothing; a lower-trust rewrite that the
  // user's guards never saw is refused.
  const guardedBy = isUserTier === undefined ? undefined : judged.find((j) => isUserTier(j.result));
  let updatedInput: Record<string, unknown> | null = null;
  let updatedBy: string | null = null;
  for (const { verdict, result } of judged) {
    if (verdict.updatedInput === null || isBlockingDecision(verdict.decision)) continue;
    if (guardedBy !== undefined && !isUserTier!(result)) {
      warnings.push(refusedRewriteText(result, guardedBy.result));
      continue;
    }
    if (updatedInput !== null && canonicalJson(updatedInput) !== canonicalJson(verdict.updatedInput)) {
      warnings.push(
        `hooks ${oneLineText(updatedBy ?? "")} and ${oneLineText(result.name)} both rewrote the tool input; ${oneLineText(result.name)} wins (later in priority order)`,
      );
    }
    updatedInput = verdict.updatedInput;
    updatedBy = result.name;
  }

  return {
    decision,
    blocked,
    reason: reasons.length ? reasons.join("\n") : null,
    continue: stoppers.length === 0,
    stopReason: stopReasons.length ? stopReasons.join("\n") : null,
    systemMessages: judged.flatMap((j) => (j.verdict.systemMessage === null ? [] : [j.verdict.systemMessage])),
    additionalContext: judged.flatMap((j) => (j.verdict.additionalContext === null ? [] : [j.verdict.additionalContext])),
    updatedInput: blocked ? null : updatedInput,
    suppressOutput: judged.some((j) => j.verdict.suppressOutput),
    warnings,
  };
}

/** The one warning line for a lower-trust rewrite refused: whose, and which of the user's hooks judged the input. */
export function refusedRewriteText(rewriter: HookResult, guard: HookResult): string {
  return `hook ${oneLineText(rewriter.name)} (${oneLineText(rewriter.level)}) rewrote the tool input; refused: your hook ${oneLineText(guard.name)} (${oneLineText(guard.level)}) judged the input as the agent sent it, not the rewrite, so the tool runs with the original input`;
}
