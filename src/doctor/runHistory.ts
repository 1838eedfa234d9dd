import type { EventName } from "../schema/events.js";
import type { HookResult } from "../schema/outcome.js";
import { isGuardEvent } from "./guardEvents.js";

/** Words a guard's blocking path prints (what the exit-1 rule looks for, in a script and in a logged stderr). */
export const BLOCK_WORDS = /\b(deny|denied|block|blocked|blocking|forbid|forbidden|refuse|refused|not allowed|dangerous|reject|rejected)\b/i;

/** Runs of one kind the log holds: how many, and the newest one's event. */
export interface RunsSeen {
  readonly count: number;
  readonly lastSeq: number;
}

/** What the log says of one hook's runs that the guard rules read. */
export interface HookRunHistory {
  /** Runs on a guard event that exited 1 with a deny/block message on stderr: meant to block, did not. */
  readonly exit1Blocking: RunsSeen | null;
  /** Runs on PreToolUse or PermissionRequest that answered allow: each skipped the permission prompt. */
  readonly allowed: RunsSeen | null;
}

/** The log's history of hook runs, as doctor reads it: the events read, and each hook's by its level and name. */
export interface RunHistory {
  readonly events: number;
  of(level: string, name: string): HookRunHistory | undefined;
}

/** One logged event, as much as the history reads. */
export interface HistoryEvent {
  readonly seq: number;
  readonly event: EventName | null;
  readonly hooks: readonly HookResult[];
}

const keyOf = (level: string, name: string): string => JSON.stringify([level, name]);

const seen = (had: RunsSeen | null, seq: number): RunsSeen => ({ count: (had?.count ?? 0) + 1, lastSeq: Math.max(had?.lastSeq ?? seq, seq) });

/** Folds logged events (in any order) into each hook's history; a hook with nothing to say has none. Pure. */
export function foldRunHistory(events: Iterable<HistoryEvent>): RunHistory {
  const byHook = new Map<string, { exit1Blocking: RunsSeen | null; allowed: RunsSeen | null }>();
  let read = 0;
  for (const e of events) {
    read++;
    if (e.event === null || !isGuardEvent(e.event)) continue;
    const asks = e.event === "PreToolUse" || e.event === "PermissionRequest";
    for (const r of e.hooks) {
      const exit1 = r.exitCode === 1 && BLOCK_WORDS.test(r.stderr);
      const allowed = asks && r.decision === "allow";
      if (!exit1 && !allowed) continue;
      const key = keyOf(r.level, r.name);
      const h = byHook.get(key) ?? { exit1Blocking: null, allowed: null };
      if (exit1) h.exit1Blocking = seen(h.exit1Blocking, e.seq);
      if (allowed) h.allowed = seen(h.allowed, e.seq);
      byHook.set(key, h);
    }
  }
  return { events: read, of: (level, name) => byHook.get(keyOf(level, name)) };
}

/** A history of nothing: what doctor reads when there is no log. */
export const NO_HISTORY: RunHistory = { events: 0, of: () => undefined };
