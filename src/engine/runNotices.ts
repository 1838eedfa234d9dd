import { join } from "node:path";
import { budgetKey, foldBudget, overBudget, overrunText } from "../core/hookBudget.js";
import { fileNoticeCounter } from "../handlers/noticeMemory.js";
import { type FailureNotice, failureNotices, memoryCounter, noticesToSay } from "../output/failureNotices.js";
import type { Outcome } from "../schema/outcome.js";
import type { BudgetSettings } from "../schema/settings.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { LogWarning } from "../store/eventLog.js";
import { besideLog } from "../store/logPath.js";
import { attestLoad, noneLoaded } from "./loadAttestation.js";

/**
 * What the person is told in the host's answer about hooks that failed or did not run (`qhooks.notify`, on by
 * default): each notice once per session, counted in a file next to the log (in this process's memory without one).
 * Shared by `qhooks run` and a run forwarded to `qhooks serve`, so that both say the same.
 */
export function runNotices(
  outcome: Outcome,
  snapshot: SettingsSnapshot,
  shown: boolean,
  db: string | null,
  homeDir: string,
  logWarnings: readonly LogWarning[] = [],
): string[] {
  if (!snapshot.notify || !shown) return [];
  const found = [...failureNotices(outcome, snapshot.missingPlugins), ...budgetNotices(outcome, snapshot.budget), ...logNotices(logWarnings)];
  // At the start of a session, hooks configured and none loaded: the person learns it before relying on them.
  const none = outcome.event === "SessionStart" ? noneLoaded(attestLoad(snapshot, null)) : null;
  if (none !== null) found.push({ key: "none-loaded", text: `qhooks: ${none}; no hook runs (qhooks hooks says why)` });
  if (found.length === 0) return [];
  const counter = db === null ? memoryCounter() : fileNoticeCounter(join(besideLog(db, homeDir), "notices"));
  return noticesToSay(found, outcome.sessionId, counter);
}

/**
 * A hook whose runs in this one event already cross a `qhooks.budget` limit per turn (the run-time check of
 * engine/steps/aggregateOutcome.ts, the same fold): the person waits on it, so they hear it like a failure, once per
 * session then counted. The decision is untouched. A shadow hook is left out, as for failures.
 */
function budgetNotices(outcome: Outcome, budget: BudgetSettings | null | undefined): FailureNotice[] {
  if (!budget || outcome.hooks.length === 0) return [];
  const hooks = outcome.hooks.filter((h) => !h.shadow);
  const usage = foldBudget([{ event: outcome.event, sessionId: outcome.sessionId, hooks }]);
  return overBudget(usage, budget).map((o) => ({ key: `over-budget\0${o.kind}\0${budgetKey(o.level, o.hook)}`, text: `qhooks: ${overrunText(o)}` }));
}

/**
 * What the log said of itself that the person must act on: its key cannot sign its heads (unreadable, others may
 * read it, not a key), so the log grows without signed heads and evidence taken from it is covered by links only.
 * Said like a failing hook: once a session, then counted.
 */
function logNotices(warnings: readonly LogWarning[]): FailureNotice[] {
  return warnings.filter((w) => w.kind === "heads-unsigned").map((w) => ({ key: `log\0${w.kind}`, text: `qhooks: event log: ${w.message}` }));
}
