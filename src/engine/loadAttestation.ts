import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { LoadAttestation, SkipKind, SkippedHook } from "../schema/doctor.js";
import { HOSTS } from "../hosts/hosts.js";
import type { HostEventNames } from "../hosts/hostEventNames.js";
import { formatPath } from "../schema/zodIssues.js";
import type { TrustCheck } from "../trust/trustPolicy.js";
import type { DeclaredHook } from "../core/hookDescriptor.js";
import { disabledWhy } from "../settings/switchedOff.js";
import { weakerCopyWhy } from "../settings/guardPrecedence.js";
import { splitWarnings, type SplitWarning } from "./readerWarnings.js";
import { isJsonObject } from "../json/jsonObject.js";

/**
 * How many hook entries the files hold and how many qhooks runs, each one it does not with why: the reader's
 * warning for it (or for its group, event or file), or trust's verdict. Counts the hooks sections as written (the
 * snapshot's document), so nothing is read again; a file that could not be parsed is listed as unread.
 */
export function attestLoad(snapshot: SettingsSnapshot, trust: TrustCheck | null): LoadAttestation {
  const warnings = byFile(splitWarnings(snapshot));
  const loaded = new Map<string, DeclaredHook>();
  for (const hook of snapshot.hooks) loaded.set(`${hook.file}\0${hook.path}`, hook);
  const byPath = new Map(snapshot.sources.map((s) => [s.path, s]));
  const untrusted = trust === null ? new Map<DeclaredHook, string>() : untrustedHooks(snapshot, trust);
  const switchedOff = new Map<string, { why: string; kind: SkipKind }>(
    snapshot.disabled.map((d) => [`${d.hook.file}\0${d.hook.path}`, { why: disabledWhy(d), kind: "switched-off" }]),
  );
  for (const w of snapshot.overruled) switchedOff.set(`${w.copy.file}\0${w.copy.path}`, { why: weakerCopyWhy(w), kind: "overruled" });

  let configured = 0;
  let running = 0;
  const skipped: SkippedHook[] = [];
  let notListed = 0;
  let notListedOff = 0;
  const documented = new Set<string>();
  for (const part of snapshot.document) {
    const source = byPath.get(part.file);
    if (source === undefined) continue;
    documented.add(source.display);
    const names = HOSTS[source.dialect ?? snapshot.dialect]?.eventNames;
    for (const { path, event, shaped } of entryPaths(part.hooks)) {
      configured++;
      const hook = loaded.get(`${source.display}\0${path}`);
      const notTrusted = hook && untrusted.get(hook);
      if (hook && notTrusted === undefined) {
        running++;
        continue;
      }
      const off = switchedOff.get(`${source.display}\0${path}`);
      if (skipped.length >= MAX_SKIPPED_LISTED) {
        notListed++;
        if (notTrusted === undefined && off?.kind === "switched-off") notListedOff++;
        continue;
      }
      const why = notTrusted ?? off?.why ?? whyNotLoaded(warnings.get(source.display) ?? [], path);
      const kind: SkipKind = notTrusted !== undefined ? "untrusted" : (off?.kind ?? readerKind(names, event, shaped));
      skipped.push({ level: source.plugin ? "plugin" : source.level, file: source.display, path, why, kind });
    }
  }
  const unreadFiles = snapshot.sources
    .filter((s) => s.state !== "missing" && !documented.has(s.display))
    .flatMap((s) => {
      const w = warnings.get(s.display)?.find((x) => x.place.path === null);
      // A file read as JSON without a hooks section holds no hooks: nothing to list.
      return w === undefined ? [] : [{ level: s.plugin ? "plugin" : s.level, file: s.display, why: w.message }];
    });
  return { configured, loaded: running, skipped, ...(notListed > 0 ? { notListed: { count: notListed, switchedOff: notListedOff } } : {}), unreadFiles };
}

/** Skipped entries listed one by one; the rest are counted (as the reader shows at most 100 warnings per file). */
export const MAX_SKIPPED_LISTED = 100;

/** The reader's warnings of each file, so that each entry's search looks at its own file's only. */
function byFile(warnings: readonly SplitWarning[]): Map<string | null, SplitWarning[]> {
  const files = new Map<string | null, SplitWarning[]>();
  for (const w of warnings) {
    const list = files.get(w.place.file);
    if (list) list.push(w);
    else files.set(w.place.file, [w]);
  }
  return files;
}

interface EntryPath {
  readonly path: string;
  /** The event's key as the file writes it. */
  readonly event: string;
  /** Whether the entry is an object where the host reads one (else the entry, its group or its event is misshapen). */
  readonly shaped: boolean;
}

/**
 * Each handler entry's path (`hooks.E[g].hooks[h]`); an event or group that is not the expected shape, as one entry
 * (a host that writes a hook per entry, Cursor, has `hooks.E[g]` as the entry).
 */
function* entryPaths(section: unknown): Generator<EntryPath> {
  if (!isJsonObject(section)) return;
  for (const [event, groups] of Object.entries(section as object)) {
    if (!Array.isArray(groups)) {
      yield { path: formatPath(["hooks", event]), event, shaped: false };
      continue;
    }
    for (let g = 0; g < groups.length; g++) {
      const hooks = (groups[g] as { hooks?: unknown } | null)?.hooks;
      if (!Array.isArray(hooks) || hooks.length === 0) {
        if (!Array.isArray(hooks)) yield { path: formatPath(["hooks", event, g]), event, shaped: isJsonObject(groups[g]) };
        continue;
      }
      for (let h = 0; h < hooks.length; h++) yield { path: formatPath(["hooks", event, g, "hooks", h]), event, shaped: isJsonObject(hooks[h]) };
    }
  }
}

/** The kind of a reader's skip, from the file's structure and the host's event names (never from the warning's text). */
function readerKind(names: HostEventNames | undefined, event: string, shaped: boolean): SkipKind {
  if (names?.unmapped.has(event)) return "no-qhooks-event";
  if (names !== undefined && !names.toQhooks.has(event)) return "unknown-event";
  return shaped ? "invalid" : "wrong-shape";
}

/** The reader's warning about this entry, its own fields first, then its group's, its event's, its file's. */
function whyNotLoaded(ofFile: readonly SplitWarning[], path: string): string {
  const own = ofFile.find((w) => w.place.path !== null && (w.place.path === path || w.place.path.startsWith(`${path}.`)));
  if (own) return `${own.place.path}: ${own.message}`;
  const enclosing = ofFile
    .filter((w) => w.place.path !== null && (path.startsWith(`${w.place.path}.`) || path.startsWith(`${w.place.path}[`)))
    .sort((a, b) => b.place.path!.length - a.place.path!.length)[0];
  if (enclosing) return `${enclosing.place.path}: ${enclosing.message}`;
  return ofFile.find((w) => w.place.path === null)?.message ?? "not loaded, and the reader said nothing about it";
}

/** Hooks trust would skip, each with its verdict; the same command of one event counts as declared by every entry. */
export function untrustedHooks(snapshot: SettingsSnapshot, trust: TrustCheck): Map<DeclaredHook, string> {
  const declared = new Map<string, DeclaredHook[]>();
  for (const hook of snapshot.hooks) {
    if (hook.handler.type !== "command") continue;
    const key = `${hook.event}\0${hook.command}`;
    const list = declared.get(key);
    if (list) list.push(hook);
    else declared.set(key, [hook]);
  }
  const skipped = new Map<DeclaredHook, string>();
  for (const hooks of declared.values()) {
    const verdict = trust.verdict(hooks[0]!.command, hooks);
    if (!verdict.runs) for (const hook of hooks) skipped.set(hook, `not trusted: ${verdict.message}`);
  }
  return skipped;
}

/**
 * "Some configured, none loaded" in one line, or null: hooks are configured (or files could not be read) and not one
 * loads, other than by a switch the user set on purpose (`switched off: ...`).
 */
export function noneLoaded(attestation: LoadAttestation): string | null {
  const unread = attestation.unreadFiles.length;
  if (attestation.loaded > 0 || (attestation.configured === 0 && unread === 0)) return null;
  const unlisted = attestation.notListed;
  const everyOneSwitchedOff =
    attestation.skipped.every((s) => s.why.startsWith("switched off: ")) && (unlisted === undefined || unlisted.switchedOff === unlisted.count);
  if (unread === 0 && everyOneSwitchedOff) return null;
  return attestation.configured > 0
    ? `${attestation.configured} hook${attestation.configured === 1 ? "" : "s"} configured on disk, none loaded`
    : `no hook loaded: ${unread} settings file${unread === 1 ? "" : "s"} could not be read`;
}
