import { join } from "node:path";
import { budgetKey, foldBudget, overBudget, overrunText } from "../core/hookBudget.js";
import { fileNoticeCounter, memoryCounter } from "../handlers/noticeMemory.js";
import { type FailureNotice, type NoticeCounter, failureNotices, noticesToSay, warningNotices } from "../output/failureNotices.js";
import type { Outcome } from "../schema/outcome.js";
import type { BudgetSettings } from "../schema/settings.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { LogWarning } from "../store/eventLog.js";
import { besideLog } from "../store/logPath.js";
import { attestLoad, noneLoaded } from "./loadAttestation.js";

/**
 * What the person is told in the host's answer about hooks that failed or did not run (`qhooks.notify`, on by
 * default): each notice once per session, counted by `counter` (made only when there is something to say).
 * Shared by `qhooks run`, a run forwarded to `qhooks serve` and the server's http answer, so that all say the same.
 * `said.logWarnings`: what the log said of itself while this event was appended (a head it could not sign).
 * `said.warnings` are said too: the server's http answer passes those of the event, which `run` prints on stderr.
 * `said.left`: what an async hook's detached process could not say (nobody reads its output), taken only when the
 * answer is shown, so that the first run whose answer the person sees says it (handlers/leftWarnings.ts).
 */
export function runNotices(
  outcome: Outcome,
  snapshot: SettingsSnapshot,
  shown: boolean,
  counter: () => NoticeCounter,
  said: { readonly logWarnings?: readonly LogWarning[]; readonly warnings?: readonly string[]; readonly left?: () => readonly LogWarning[] } = {},
): string[] {
  if (!snapshot.notify || !shown) return [];
  const found = [
    ...failureNotices(outcome, snapshot.missingPlugins),
    ...budgetNotices(outcome, snapshot.budget),
    ...logNotices(said.logWarnings ?? []),
    ...logNotices(said.left?.() ?? [], " (in an async hook's background process)"),
  ];
  // At the start of a session, hooks configured and none loaded: the person learns it before relying on them.
  const none = outcome.event === "SessionStart" ? noneLoaded(attestLoad(snapshot, null)) : null;
  if (none !== null) found.push({ key: "none-loaded", text: `qhooks: ${none}; no hook runs (qhooks hooks says why)` });
  found.push(...warningNotices(said.warnings ?? [], found));
  if (found.length === 0) return [];
  return noticesToSay(found, outcome.sessionId, counter());
}

/**
 * How `qhooks run` counts notices: in a file per session next to the log, shared by every process of the machine;
 * without a log, in this process's memory (each call says its notices).
 */
export const logNoticeCounter = (db: string | null, homeDir: string): NoticeCounter =>
  db === null ? memoryCounter() : fileNoticeCounter(noticesDir(db, homeDir));

/** The folder of the per-session notice counts that go with a log. */
export const noticesDir = (db: string, homeDir: string): string => join(besideLog(db, homeDir), "notices");

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
function logNotices(warnings: readonly LogWarning[], where = ""): FailureNotice[] {
  return warnings.filter((w) => w.kind === "heads-unsigned").map((w) => ({ key: `log\0${w.kind}`, text: `qhooks: event log${where}: ${w.message}` }));
}
