import type { PipelineWarning } from "../core/warnings.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import { DEFAULT_STOP_BLOCK_CAP, capOf } from "../settings/stopBlockCap.js";
import type { TrustPolicy } from "./trustPolicy.js";

/** The Stop guard's cap for one event, with what the guard has to say about how it was chosen (settings left out). */
export type StopCap = number | { readonly limit: number; readonly warnings: readonly PipelineWarning[] };

/**
 * The Stop-loop cap of an event judged by `snapshot`: the settings' cap, except that while trust is required only
 * the user's own files count (the caps of the others are left out, one warning each); the default when none sets
 * one. Asked only when a Stop was blocked.
 */
export function trustedStopBlockCap(snapshot: SettingsSnapshot, trust: TrustPolicy | undefined): StopCap {
  const settings = snapshot.stopBlockCaps;
  const check = settings.length === 0 ? null : (trust?.check(snapshot) ?? null);
  if (check === null || settings.every((s) => check.settingsApply(s))) return snapshot.stopBlockCap ?? DEFAULT_STOP_BLOCK_CAP;
  const warnings: PipelineWarning[] = settings
    .filter((s) => !check.settingsApply(s))
    .map((s) => ({ kind: "setting-needs-trust", file: s.display, key: "stopBlockCap" }));
  return { limit: capOf(settings.filter((s) => check.settingsApply(s))) ?? DEFAULT_STOP_BLOCK_CAP, warnings };
}
