import type { HookResult, Outcome, SkipReason, SkippedHook } from "../schema/outcome.js";
import { oneLineText } from "../text/oneLine.js";

/**
 * One thing the person in the agent's session should know: a hook that failed, timed out, printed something
 * unreadable, or did not run for a reason they must act on; or a plugin that loads nothing. Its guard is off, and
 * without this line the only trace is the log.
 */
export interface FailureNotice {
  /** The same hook (or plugin) failing the same way has the same key, on every event: what is counted per session. */
  readonly key: string;
  /** One line, without the count: `qhooks: hook "guard.sh" failed (exit 127: command not found (...))`. */
  readonly text: string;
}

/** A plugin asked for that loads no hooks (settings/plugins.ts MissingPlugin, repeated here to keep output below settings). */
export interface UnloadedPlugin {
  readonly plugin: string;
  readonly why: string;
}

/**
 * How many times this session a notice has come up, this time included (1 the first time). `qhooks run` keeps the
 * count in a small file per session (handlers/noticeMemory.ts); without a log, in memory.
 */
export interface NoticeCounter {
  count(sessionId: string, key: string): number;
}

/** Skips that are normal (`once`, `async`) say nothing; these mean a guard the user configured is not guarding. */
const ACTIONABLE_SKIPS: ReadonlySet<SkipReason> = new Set(["untrusted", "no-evaluator", "no-mcp-caller"]);

/** Longest hook name and reason in a notice: one short line the person reads at a glance; the log has the rest. */
const NAME_LENGTH = 60;
const REASON_LENGTH = 160;

/**
 * The notices an outcome gives, in selection order, then the missing plugins. A shadow hook's failure is left out:
 * it is on trial and never changes what the agent gets (its result is in the log).
 */
export function failureNotices(outcome: Outcome, missingPlugins: readonly UnloadedPlugin[]): FailureNotice[] {
  const notices: FailureNotice[] = [];
  for (const hook of outcome.hooks) {
    if (hook.shadow || hook.error === null) continue;
    notices.push({ key: `failed\0${identity(hook)}`, text: `qhooks: hook ${quoted(hook.name)} failed (${firstLine(hook.error)})${blockedBy(hook)}` });
  }
  for (const hook of outcome.skipped) {
    if (!ACTIONABLE_SKIPS.has(hook.reason)) continue;
    notices.push({ key: `skipped\0${hook.reason}\0${identity(hook)}`, text: `qhooks: hook ${quoted(hook.name)} did not run (${firstLine(hook.message)})` });
  }
  for (const p of missingPlugins) {
    notices.push({ key: `plugin\0${p.plugin}`, text: `qhooks: plugin ${quoted(p.plugin)} not loaded (${firstLine(p.why)}); its hooks do not run` });
  }
  return notices;
}

/** Longest warning in a notice: the log and serve.log keep it whole. */
const WARNING_LENGTH = 240;

/**
 * The warnings qhooks gave while judging an event (its log not written, a setting not applied...), as notices: an
 * HTTP answer has no stderr, so that the person learns them at all they are said like failures, each its own key.
 * A warning already said by another notice (an over-budget hook) and repeats are left out.
 */
export function warningNotices(warnings: readonly string[], already: readonly FailureNotice[] = []): FailureNotice[] {
  const said = new Set(already.map((n) => n.text));
  const notices: FailureNotice[] = [];
  for (const warning of new Set(warnings)) {
    if (said.has(`qhooks: ${warning}`)) continue;
    notices.push({ key: `warning\0${warning}`, text: `qhooks: warning: ${oneLineText(warning.trim(), WARNING_LENGTH)}` });
  }
  return notices;
}

/**
 * What this process says of these notices: each the first time it comes up in the session, then only at its 10th,
 * 100th, 1000th... time, with the count, so that a hook failing on every tool call is one line, not one per call.
 */
export function noticesToSay(notices: readonly FailureNotice[], sessionId: string, counter: NoticeCounter): string[] {
  const said: string[] = [];
  for (const notice of notices) {
    const nth = counter.count(sessionId, notice.key);
    if (nth === 1) said.push(notice.text);
    else if (isPowerOfTen(nth)) said.push(`${notice.text}, ${nth}th time this session`);
  }
  return said;
}

const identity = (hook: Pick<HookResult | SkippedHook, "level" | "command" | "name">): string => `${hook.level}\0${hook.command ?? hook.name}`;
const quoted = (name: string): string => `"${oneLineText(name, NAME_LENGTH)}"`;
const firstLine = (text: string): string => oneLineText(text.trim().split("\n")[0]!.trim(), REASON_LENGTH);
/** A failure `onFailure: "block"` turned into a block: the block itself is answered as usual. */
const blockedBy = (hook: HookResult): string => (hook.outcome === "block" ? ', and blocks (onFailure: "block")' : "");

function isPowerOfTen(n: number): boolean {
  let m = n;
  while (m >= 10 && m % 10 === 0) m /= 10;
  return m === 1 && n >= 10;
}
