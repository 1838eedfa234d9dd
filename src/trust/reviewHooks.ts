import type { TrustCandidate, TrustEntry, TrustStore } from "../schema/trust.js";
import type { SettingsSnapshot } from "../settings/loadSettings.js";
import { HookPins, runFieldsOf } from "./pinHook.js";
import { type ProjectTrust, whereOf } from "./trustScope.js";
import { scopeKey, type TrustIndex } from "./trustStore.js";

/** Every hook of a configuration that needs trust, sorted by whether the store already trusts it. */
export interface TrustReview {
  /** Hooks needing trust whose content the store trusts (counted once per content). */
  readonly alreadyTrusted: number;
  /** Hooks needing trust that the store does not trust, one per place they are declared. */
  readonly untrusted: readonly TrustCandidate[];
  /** What recording the untrusted hooks adds to the store (one entry per scope and content). */
  readonly entries: readonly TrustEntry[];
}

/** What `qhooks trust` shows and records: each hook of the project, its local settings and plugins, pinned now. */
export function reviewHooks(snapshot: SettingsSnapshot, project: ProjectTrust, index: TrustIndex, now: Date = new Date()): TrustReview {
  const pins = new HookPins();
  const trusted = new Set<string>();
  const untrusted: TrustCandidate[] = [];
  const entries = new Map<string, TrustEntry>();
  const shown = new Set<string>();
  for (const hook of snapshot.hooks) {
    const scope = project.scopeOf(hook);
    if (scope === null) continue;
    const pin = pins.of(hook.command, project.placeOf(hook), hook.handler);
    const where = whereOf(hook);
    const shell = runFieldsOf(hook.handler).shell;
    const base = { event: hook.event, level: hook.level, plugin: hook.plugin?.name ?? null, where, command: hook.command, shell: shell ?? null, scope };
    if (pin.state === "unpinnable") {
      untrusted.push({ ...base, digest: null, files: [], problem: pin.why });
      continue;
    }
    const key = `${scopeKey(scope)}\0${pin.digest}`;
    if (index.digests.has(key)) {
      trusted.add(key);
      continue;
    }
    if (shown.has(`${key}\0${where}`)) continue;
    shown.add(`${key}\0${where}`);
    untrusted.push({ ...base, digest: pin.digest, files: [...pin.files], problem: null });
    if (!entries.has(key))
      entries.set(key, {
        scope,
        digest: pin.digest,
        command: hook.command,
        ...(shell !== undefined ? { shell } : {}),
        files: [...pin.files],
        where,
        trustedAt: now.toISOString(),
      });
  }
  return { alreadyTrusted: trusted.size, untrusted, entries: [...entries.values()] };
}

/** The entries `--revoke` removes: those whose digest starts with `prefix`, or else those of these scopes. */
export function revokedBy(store: TrustStore, match: { readonly prefix: string } | { readonly scopes: ReadonlySet<string> }): TrustEntry[] {
  return store.trusted.filter((e) => ("prefix" in match ? e.digest.startsWith(match.prefix) : match.scopes.has(scopeKey(e.scope))));
}
