import type { DeclaredHook } from "../core/hookDescriptor.js";

/**
 * What switched a hook off: the hosts' `disableAllHooks`, qhooks' per-hook `qhooks.disabled`, or this run's switch
 * (`qhooks run --no-hooks`, `QHOOKS_DISABLE=1`).
 */
export type SwitchKind = "disableAllHooks" | "qhooks.disabled" | "hooksConfig.disabled" | "run";

/** A hook switched off, what did it, and the file (or, for a run, the flag or variable) that said it. */
export interface DisabledHook {
  readonly hook: DeclaredHook;
  readonly switch: SwitchKind;
  readonly by: string;
}

/** The switches the settings files set, each with the file that set it. */
export interface SettingsSwitches {
  /** `disableAllHooks: true` in one of the user's own files: every hook is off. */
  readonly allBy: string | null;
  /** `disableAllHooks: true` in a lower-trust file: the hooks of the project, its local settings and plugins are off. */
  readonly sharedBy: string | null;
  /** `qhooks.disabled` of the user's own files: hook name to the file that names it. */
  readonly names: ReadonlyMap<string, string>;
  /**
   * The host's own list of hook names switched off (Gemini CLI's `hooksConfig.disabled`), name to the file that names
   * it: a name from the user's own files switches off every hook of that name; one from a lower-trust file only the
   * hooks of the project, its local settings and plugins (never the user's guards).
   */
  readonly hostNames?: ReadonlyMap<string, { readonly by: string; readonly own: boolean }>;
}

export interface SwitchedHooks {
  readonly enabled: DeclaredHook[];
  readonly disabled: DisabledHook[];
  readonly warnings: string[];
}

/**
 * Splits the hooks into those that run and those switched off, each with what switched it off; says in one warning
 * per switch how many it turned off (a name that matches no hook is a warning too: a typo would switch off nothing).
 */
export function applySwitches(hooks: readonly DeclaredHook[], switches: SettingsSwitches, isUserTierHook: (hook: DeclaredHook) => boolean): SwitchedHooks {
  const enabled: DeclaredHook[] = [];
  const disabled: DisabledHook[] = [];
  const named = new Map<string, number>();
  const hostNamed = new Map<string, number>();
  for (const hook of hooks) {
    const all = switches.allBy ?? (isUserTierHook(hook) ? null : switches.sharedBy);
    if (all !== null) {
      disabled.push({ hook, switch: "disableAllHooks", by: all });
      continue;
    }
    const byName = switches.names.get(hook.name);
    if (byName !== undefined) {
      disabled.push({ hook, switch: "qhooks.disabled", by: byName });
      named.set(hook.name, (named.get(hook.name) ?? 0) + 1);
      continue;
    }
    const byHost = switches.hostNames?.get(hook.name);
    if (byHost !== undefined && (byHost.own || !isUserTierHook(hook))) {
      disabled.push({ hook, switch: "hooksConfig.disabled", by: byHost.by });
      hostNamed.set(hook.name, (hostNamed.get(hook.name) ?? 0) + 1);
      continue;
    }
    enabled.push(hook);
  }
  const warnings: string[] = [];
  const offByAll = disabled.filter((d) => d.switch === "disableAllHooks").length;
  if (switches.allBy !== null) warnings.push(`${switches.allBy}: disableAllHooks: every hook is off (${offByAll})`);
  else if (switches.sharedBy !== null) {
    const yours = [...new Set(enabled.filter(isUserTierHook).map((h) => h.file))];
    warnings.push(
      `${switches.sharedBy}: disableAllHooks: the hooks of the project, its local settings and plugins are off (${offByAll}); yours still run${yours.length ? ` (${yours.join(", ")})` : ""}`,
    );
  }
  for (const [name, file] of switches.names) {
    const count = named.get(name) ?? 0;
    // Under disableAllHooks of the user's own, every hook is already off: a name is no news then.
    if (switches.allBy !== null) continue;
    warnings.push(
      count === 0
        ? `${file}: qhooks.disabled: no hook is named ${JSON.stringify(name)}; nothing switched off by it`
        : `${file}: qhooks.disabled: ${JSON.stringify(name)} is off (${count})`,
    );
  }
  for (const [name, { by, own }] of switches.hostNames ?? []) {
    if (switches.allBy !== null) continue;
    const count = hostNamed.get(name) ?? 0;
    const whose = own ? "" : " (yours still run: a lower-trust file switches off only the project's, local and plugin hooks)";
    warnings.push(
      count === 0
        ? `${by}: hooksConfig.disabled: no hook${own ? "" : " of the project, its local settings or plugins"} is named ${JSON.stringify(name)}; nothing switched off by it`
        : `${by}: hooksConfig.disabled: ${JSON.stringify(name)} is off (${count})${whose}`,
    );
  }
  return { enabled, disabled, warnings };
}

/** Why a switched-off hook does not run, as `qhooks hooks` and the load attestation say it. */
export function disabledWhy(d: DisabledHook): string {
  return d.switch === "run" ? `switched off: ${d.by} (this run)` : `switched off: ${d.switch} in ${d.by}`;
}
