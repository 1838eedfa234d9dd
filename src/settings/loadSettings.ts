import { readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { EventName } from "../schema/events.js";
import { canonicalJson, sha256Hex } from "../json/canonicalHash.js";
import { parseSettingsFile, type ConfiguredHook } from "./parseSettingsFile.js";
import type { SettingsSource } from "./settingsSources.js";

/** What reading one settings file gave: its text, nothing (missing), or why it could not be read. */
export type SettingsRead =
  | { readonly state: "loaded"; readonly text: string; readonly worldWritable: boolean; readonly replaceable?: boolean }
  | { readonly state: "missing" }
  | { readonly state: "unreadable"; readonly why: string };

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
  /** `qhooks.stopBlockCap` of the highest-priority file that sets it; null when none does. */
  readonly stopBlockCap: number | null;
  /** What the log keeps of this configuration: the `hooks` sections only, never other settings. */
  readonly document: ReadonlyArray<{ readonly level: string; readonly file: string; readonly hooks: unknown }>;
}

export function readSettingsSource(source: SettingsSource): SettingsRead {
  try {
    const text = readFileSync(source.path, "utf8");
    // Hooks run commands: a settings file that anyone can edit hands out code execution.
    const worldWritable = (statSync(source.path).mode & 0o002) !== 0;
    // So does one in a directory that anyone can write to, unless the sticky bit (as on /tmp) keeps others from
    // removing or renaming what is not theirs.
    const dir = statSync(dirname(source.path)).mode;
    const replaceable = (dir & 0o002) !== 0 && (dir & 0o1000) === 0;
    return { state: "loaded", text, worldWritable, replaceable };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { state: "missing" };
    if (code === "ENOTDIR") return { state: "missing" };
    return { state: "unreadable", why: code === "EISDIR" ? "is a directory" : (code ?? String(e)) };
  }
}

/** Reads and validates every source; never throws for what the files contain. */
export function loadSettings(sources: readonly SettingsSource[]): SettingsSnapshot {
  return buildSnapshot(sources, sources.map(readSettingsSource));
}

export function buildSnapshot(sources: readonly SettingsSource[], reads: readonly SettingsRead[]): SettingsSnapshot {
  const hooks: ConfiguredHook[] = [];
  const warnings: string[] = [];
  const document: { level: string; file: string; hooks: unknown }[] = [];
  let stopBlockCap: number | null = null;
  sources.forEach((source, i) => {
    const read = reads[i]!;
    if (read.state === "unreadable") warnings.push(`${source.display}: cannot be read (${read.why}); this file is skipped`);
    // A mistyped --settings path would otherwise turn every guard in it off without a word.
    if (read.state === "missing" && source.explicit) warnings.push(`${source.display}: does not exist; no hooks from it`);
    if (read.state !== "loaded") return;
    if (read.worldWritable) warnings.push(`${source.display}: writable by every user; anyone here can change these hooks`);
    else if (read.replaceable) warnings.push(`${source.display}: in a directory writable by every user; anyone here can replace these hooks`);
    const parsed = parseSettingsFile(source, read.text);
    hooks.push(...parsed.hooks);
    warnings.push(...parsed.warnings);
    if (parsed.qhooks.stopBlockCap !== undefined) stopBlockCap = parsed.qhooks.stopBlockCap;
    if (parsed.hooksSection !== undefined) document.push({ level: source.level, file: source.path, hooks: parsed.hooksSection });
  });

  const byEvent = new Map<EventName, ConfiguredHook[]>();
  for (const hook of hooks) {
    const list = byEvent.get(hook.event);
    if (list) list.push(hook);
    else byEvent.set(hook.event, [hook]);
  }
  // The cap changes decisions, so it is part of what identifies the config (only when set: a config without it
  // keeps the hash it always had).
  const hash = sha256Hex(canonicalJson(stopBlockCap === null ? { document, warnings } : { document, warnings, stopBlockCap }));
  return {
    hash,
    sources: sources.map((s, i) => ({ ...s, state: reads[i]!.state })),
    hooks,
    byEvent,
    warnings,
    stopBlockCap,
    document,
  };
}
