import type { EventName } from "../schema/events.js";
import { messageOf } from "../errors.js";
import { canonicalJson, sha256Hex } from "../json/canonicalHash.js";
import { parseSettingsFile, type ConfiguredHook } from "./parseSettingsFile.js";
import { readSettingsSource, type SettingsRead } from "./readSettingsSource.js";
import type { SettingsSource } from "./settingsSources.js";

export { MAX_SETTINGS_BYTES, readSettingsSource, type SettingsRead } from "./readSettingsSource.js";

/**
 * One immutable view of the hook configuration. A dispatch judges its event with exactly one snapshot, and the
 * log traces every decision to the snapshot's hash.
 */
export interface SettingsSnapshot {
  /** sha256 of the normalised hooks sections and warnings of every source. */
  readonly hash: string;
  readonly sources: ReadonlyArray<SettingsSource & { readonly state: SettingsRead["state"] }>;
  /** Every valid handler, in level order then declaration order. */
  readonly hooks: readonly ConfiguredHook[];
  readonly byEvent: ReadonlyMap<EventName, readonly ConfiguredHook[]>;
  readonly warnings: readonly string[];
  /** What the log keeps of this configuration: the `hooks` sections only, never other settings. */
  readonly document: ReadonlyArray<{ readonly level: string; readonly file: string; readonly hooks: unknown }>;
}

/** Reads and validates every source; never throws for what the files contain. */
export function loadSettings(sources: readonly SettingsSource[]): SettingsSnapshot {
  return buildSnapshot(sources, sources.map(readSettingsSource));
}

export function buildSnapshot(sources: readonly SettingsSource[], reads: readonly SettingsRead[]): SettingsSnapshot {
  const hooks: ConfiguredHook[] = [];
  const warnings: string[] = [];
  const document: { level: string; file: string; hooks: unknown }[] = [];
  // Loops, never push(...list): a spread passes each element on the stack, and a file can hold a hundred thousand.
  sources.forEach((source, i) => {
    const read = reads[i]!;
    if (read.state === "unreadable") warnings.push(`${source.display}: ${read.why}; this file is skipped`);
    // A mistyped --settings path would otherwise turn every guard in it off without a word.
    if (read.state === "missing" && source.explicit) warnings.push(`${source.display}: does not exist; no hooks from it`);
    if (read.state !== "loaded") return;
    if (read.worldWritable) warnings.push(`${source.display}: writable by every user; anyone here can change these hooks`);
    else if (read.replaceable) warnings.push(`${source.display}: in a directory writable by every user; anyone here can replace these hooks`);
    let parsed: ReturnType<typeof parseSettingsFile>;
    try {
      parsed = parseSettingsFile(source, read.text);
    } catch (e) {
      // A bug met in one file costs that file, never the other levels' guards.
      warnings.push(`${source.display}: internal error while reading it (${messageOf(e)}); this file is skipped`);
      return;
    }
    for (const hook of parsed.hooks) hooks.push(hook);
    for (const warning of parsed.warnings) warnings.push(warning);
    if (parsed.hooksSection !== undefined) document.push({ level: source.level, file: source.path, hooks: parsed.hooksSection });
  });

  const byEvent = new Map<EventName, ConfiguredHook[]>();
  for (const hook of hooks) {
    const list = byEvent.get(hook.event);
    if (list) list.push(hook);
    else byEvent.set(hook.event, [hook]);
  }
  const hash = sha256Hex(canonicalJson({ document, warnings }));
  return {
    hash,
    sources: sources.map((s, i) => ({ ...s, state: reads[i]!.state })),
    hooks,
    byEvent,
    warnings,
    document,
  };
}
