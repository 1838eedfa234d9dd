import { canonicalJson, sha256Hex } from "../json/canonicalHash.js";
import type { SettingsSnapshot } from "./loadSettings.js";
import type { DisabledHook } from "./switchedOff.js";

/** What switched hooks off for one run: the flag, or the variable. */
export type RunSwitch = "--no-hooks" | "QHOOKS_DISABLE=1";

/**
 * The per-run switch, read from the flag, then from the environment: `QHOOKS_DISABLE=1` (or `true`); null when
 * hooks run. Any other value of the variable is not a switch.
 */
export function runSwitchOf(noHooks: boolean, env: Readonly<Record<string, string | undefined>>): RunSwitch | null {
  if (noHooks) return "--no-hooks";
  const value = env.QHOOKS_DISABLE?.trim().toLowerCase();
  return value === "1" || value === "true" ? "QHOOKS_DISABLE=1" : null;
}

/**
 * The snapshot with every hook switched off for this run: none runs, each is listed as switched off by `by`, and
 * one warning says it (kept in the log with the configuration, whose hash it changes).
 */
export function switchAllOff(snapshot: SettingsSnapshot, by: RunSwitch): SettingsSnapshot {
  const disabled: DisabledHook[] = [...snapshot.disabled, ...snapshot.hooks.map((hook) => ({ hook, switch: "run" as const, by }))];
  const warnings = [...snapshot.warnings, `${by}: hooks are switched off for this run; ${snapshot.hooks.length} not run, the event is still logged`];
  return {
    ...snapshot,
    hash: sha256Hex(canonicalJson({ of: snapshot.hash, runSwitch: by, warnings })),
    disabled,
    hooks: [],
    byEvent: new Map(),
    warnings,
  };
}

/**
 * The snapshot with warnings of this run's own (variables a project set and qhooks ignored): said with the
 * configuration's, and kept in the log with it (they change its hash).
 */
export function withRunWarnings(snapshot: SettingsSnapshot, lines: readonly string[]): SettingsSnapshot {
  if (lines.length === 0) return snapshot;
  const warnings = [...snapshot.warnings, ...lines];
  return { ...snapshot, hash: sha256Hex(canonicalJson({ of: snapshot.hash, warnings })), warnings };
}
