import { canonicalJson, sha256Hex } from "../json/canonicalHash.js";
import type { DeclaredHook, SelectedHook } from "../core/hookDescriptor.js";
import type { HookRun } from "../core/hookRun.js";
import type { EventName } from "../schema/events.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";

/** A configuration as a replay runs it: `qhooks.replay.skip` hooks left out, `qhooks.replay.stub` hooks answered for. */
export interface ReplayOverrides {
  /** The configuration without its skipped hooks (the same snapshot when nothing is skipped or stubbed). */
  readonly snapshot: SettingsSnapshot;
  /** The stub answer of a hook, as the run it stands for; undefined for a hook that runs. */
  readonly stub: (spec: SelectedHook) => HookRun | undefined;
  /** Names in `qhooks.replay` that no hook of the configuration has: a typo would run the hook it meant to spare. */
  readonly unknownNames: readonly string[];
}

/**
 * Applies `qhooks.replay` to a configuration. A skipped hook is left out under every name it is declared with: the
 * same command declared again (another level, another name) is the same side effect, so it goes too.
 */
export function replayOverrides(snapshot: SettingsSnapshot): ReplayOverrides {
  const { skip, stub } = snapshot.replay;
  const names = new Set(snapshot.hooks.map((h) => h.name));
  const unknownNames = [...new Set([...skip, ...stub.keys()])].filter((n) => !names.has(n));
  if (skip.length === 0 && stub.size === 0) return { snapshot, stub: () => undefined, unknownNames };

  const skipped = new Set(skip);
  const skippedKeys = new Set(snapshot.hooks.filter((h) => skipped.has(h.name)).map(runKey));
  const hooks = snapshot.hooks.filter((h) => !skippedKeys.has(runKey(h)));
  const byEvent = new Map<EventName, DeclaredHook[]>();
  for (const hook of hooks) byEvent.set(hook.event, [...(byEvent.get(hook.event) ?? []), hook]);
  // The log traces each replayed decision to the configuration that made it: skips and stubs are part of it.
  const hash = sha256Hex(`${snapshot.hash}\nqhooks.replay ${canonicalJson({ skip: [...skipped].sort(), stub: Object.fromEntries([...stub].sort()) })}`);

  const stubOf = (spec: SelectedHook): HookRun | undefined => {
    if (spec.kind === "in-process") return undefined;
    const answer = stub.get(spec.name) ?? spec.declared.map((d) => stub.get(d.name)).find((s) => s !== undefined);
    if (answer === undefined) return undefined;
    return { type: "exited", exitCode: answer.exitCode, signal: null, durationMs: 0, stdout: answer.stdout, stderr: answer.stderr, truncated: false };
  };
  return { snapshot: { ...snapshot, hash, hooks, byEvent }, stub: stubOf, unknownNames };
}

/** What makes two declarations one run (as selection dedupes them): the plugin, the command and its shell. */
function runKey(hook: DeclaredHook): string {
  const shell = hook.handler.type === "command" ? (hook.handler.shell ?? "") : "";
  return `${hook.plugin?.root ?? ""}\0${hook.command}\0${shell}`;
}
