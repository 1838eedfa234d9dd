import type { DeclaredHook } from "../core/hookDescriptor.js";

/**
 * A lower-trust file's copy of one of the user's guards (same event, same command and shell) that would weaken it:
 * a shorter timeout, a failure that no longer blocks, shadow mode, async, once per session. Selection runs a
 * command once, under its highest-priority copy's settings, and the project and local levels rank above the user's:
 * so such a copy is ignored, and the user's guard runs as the user declared it.
 */
export interface WeakerCopy {
  readonly kind: "weakens-guard";
  readonly copy: DeclaredHook;
  readonly guard: DeclaredHook;
  /** What it would weaken, each as one phrase (`timeout 1 s < 30 s`, `mode shadow`). */
  readonly fields: readonly string[];
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** How `copy` would weaken `guard`; empty when it would not (the same settings, or stronger ones). */
export function weakenedFields(guard: DeclaredHook, copy: DeclaredHook): string[] {
  const fields: string[] = [];
  if (copy.timeoutMs < guard.timeoutMs) fields.push(`timeout ${seconds(copy.timeoutMs)} < ${seconds(guard.timeoutMs)}`);
  if (guard.handler.onFailure === "block" && copy.handler.onFailure !== "block")
    fields.push(`onFailure ${copy.handler.onFailure ?? "unset"} where yours blocks`);
  if (copy.shadow && !guard.shadow) fields.push("mode shadow");
  if (copy.handler.async === true && guard.handler.async !== true) fields.push("async");
  if (copy.handler.once === true && guard.handler.once !== true) fields.push("once");
  return fields;
}

/** What selection runs as one hook: a settings file's command (not a plugin's: those run apart) of one event and shell. */
const keyOf = (hook: DeclaredHook): string | null =>
  hook.plugin !== null ? null : `${hook.event}\0${hook.command}\0${hook.handler.type === "command" ? (hook.handler.shell ?? "") : ""}\0${hook.kind}`;

/** The hooks less each lower-trust copy that would weaken one of the user's guards, and those copies. */
export function keepGuards(hooks: readonly DeclaredHook[], isUserTierHook: (hook: DeclaredHook) => boolean): { kept: DeclaredHook[]; ignored: WeakerCopy[] } {
  const guards = new Map<string, DeclaredHook>();
  for (const hook of hooks) {
    const key = keyOf(hook);
    if (key !== null && isUserTierHook(hook) && !guards.has(key)) guards.set(key, hook);
  }
  if (guards.size === 0) return { kept: [...hooks], ignored: [] };
  const kept: DeclaredHook[] = [];
  const ignored: WeakerCopy[] = [];
  for (const hook of hooks) {
    const key = keyOf(hook);
    const guard = key === null || isUserTierHook(hook) ? undefined : guards.get(key);
    const fields = guard === undefined ? [] : weakenedFields(guard, hook);
    if (guard !== undefined && fields.length > 0) ignored.push({ kind: "weakens-guard", copy: hook, guard, fields });
    else kept.push(hook);
  }
  return { kept, ignored };
}

/** The one warning line for an ignored copy: both files, both entries, what it would weaken. */
export function weakerCopyText(w: WeakerCopy): string {
  return `${w.copy.file}: ${w.copy.path}: would weaken your guard ${w.guard.file} ${w.guard.path} (${w.fields.join(", ")}); ignored, yours runs as you declared it`;
}

/** Why an ignored copy does not load, as the load attestation says it. */
export const weakerCopyWhy = (w: WeakerCopy): string => `ignored: would weaken your guard in ${w.guard.file} (${w.fields.join(", ")})`;
