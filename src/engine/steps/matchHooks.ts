import { EVENT_TRAITS, type EventName } from "../../schema/events.js";
import { matches } from "../../core/compileMatcher.js";
import type { SettingsSnapshot } from "../../settings/loadSettings.js";
import { selectedHook, type DeclaredHook, type InProcessHandler, type SelectedHook } from "../../core/hookDescriptor.js";
import { splitByTrust } from "../../trust/splitByTrust.js";
import type { TrustPolicy } from "../../trust/trustPolicy.js";
import { memoryOnce, type OnceMemory } from "../../handlers/once.js";
import type { HandlerServices } from "../../core/services.js";
import { splitByHandler } from "../../handlers/splitByHandler.js";
import type { Matched, Validated } from "../stages.js";

/** What selection asks of the handlers: who can evaluate prompts and call MCP tools, and which once-hooks ran. */
export interface HandlerSelection {
  readonly services?: HandlerServices;
  readonly once?: OnceMemory;
}

/**
 * Selects, for each event, the hooks that will run: those that match, less those that trust does not let run
 * (reported as skipped, with a warning each). Made once for a stream.
 */
export function matchStep(
  inProcess: () => readonly InProcessHandler[] = () => [],
  trust?: TrustPolicy,
  handlers: HandlerSelection = {},
): (validated: Validated) => Matched {
  const once = handlers.once ?? memoryOnce();
  const services = handlers.services ?? {};
  return (validated) => {
    const selected = selectHooks(validated.valid.event, validated.valid.matchValue, validated.snapshot, inProcess());
    // Nothing selected: nothing for trust to check (it would stat the user's settings for its switch) or skip.
    if (selected.length === 0) {
      return {
        arrival: validated.arrival,
        valid: validated.valid,
        snapshot: validated.snapshot,
        hooks: selected,
        skipped: [],
        selectionWarnings: [],
        background: undefined,
      };
    }
    const split = splitByTrust(selected, trust?.check(validated.snapshot) ?? null);
    const byHandler = splitByHandler(split.runnable, validated.valid.sessionId, services, once);
    return {
      arrival: validated.arrival,
      valid: validated.valid,
      snapshot: validated.snapshot,
      hooks: byHandler.runnable,
      skipped: split.skipped.length === 0 ? byHandler.skipped : [...split.skipped, ...byHandler.skipped],
      selectionWarnings: split.warnings.length === 0 ? byHandler.warnings : [...split.warnings, ...byHandler.warnings],
      // No spread: a flat literal is several times faster to build, and every event passes here.
      background: byHandler.background.length ? byHandler.background : undefined,
    };
  };
}

/**
 * Every handler of every matching group: in-process handlers first, then settings in level order, then declaration
 * order. A command that appears more than once runs once, at its first position, under the name, level, matcher
 * and timeout of its highest-priority occurrence.
 */
export function selectHooks(event: EventName, matchValue: string | null, snapshot: SettingsSnapshot, inProcess: readonly InProcessHandler[]): SelectedHook[] {
  // UserPromptSubmit and Stop always fire: their matchers are ignored.
  const applies = (matcher: Parameters<typeof matches>[0]) => EVENT_TRAITS[event].matchField === null || matches(matcher, matchValue);

  const selected: SelectedHook[] = [];
  for (const h of inProcess) {
    if (h.event !== event || !applies(h.matcher)) continue;
    selected.push(h);
  }

  const levels = snapshot.sources.map((s) => s.level);
  const firstAt = new Map<string, { index: number; rank: number; declared: DeclaredHook[] }>();
  for (const hook of snapshot.byEvent.get(event) ?? []) {
    if (!applies(hook.matcher)) continue;
    const rank = levels.indexOf(hook.level);
    // A plugin's copy of a command stays separate from the settings files' (it runs with the plugin's variables);
    // so does a copy run by another shell: it runs other code, and the user's copy must not vouch for it.
    const shell = hook.handler.type === "command" ? (hook.handler.shell ?? "") : "";
    const key = `${hook.plugin?.root ?? ""}\0${hook.command}\0${shell}`;
    const seen = firstAt.get(key);
    const declared = seen?.declared ?? [];
    if (seen === undefined) {
      declared.push(hook);
      firstAt.set(key, { index: selected.length, rank, declared });
      selected.push(selectedHook(hook, declared));
    } else if (rank > seen.rank) {
      declared.unshift(hook);
      selected[seen.index] = selectedHook(hook, declared);
      seen.rank = rank;
    } else declared.push(hook);
  }
  return selected;
}
