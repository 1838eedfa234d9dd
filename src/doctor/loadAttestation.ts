import type { SettingsSnapshot } from "../settings/loadSettings.js";
import type { LoadAttestation, SkippedHook } from "../schema/doctor.js";
import { formatPath } from "../schema/zodIssues.js";
import type { TrustCheck } from "../trust/trustPolicy.js";
import type { DeclaredHook } from "../core/hookDescriptor.js";
import { disabledWhy } from "../settings/switchedOff.js";
import { weakerCopyWhy } from "../settings/guardPrecedence.js";
import { splitWarnings, type SplitWarning } from "./readerWarnings.js";

/**
 * How many hook entries the files hold and how many qhooks runs, each one it does not with why: the reader's
 * warning for it (or for its group, event or file), or trust's verdict. Counts the hooks sections as written (the
 * snapshot's document), so nothing is read again; a file that could not be parsed is listed as unread.
 */
export function attestLoad(snapshot: SettingsSnapshot, trust: TrustCheck | null): LoadAttestation {
  const warnings = splitWarnings(snapshot);
  const loaded = new Map<string, DeclaredHook>();
  for (const hook of snapshot.hooks) loaded.set(`${hook.file}\0${hook.path}`, hook);
  const byPath = new Map(snapshot.sources.map((s) => [s.path, s]));
  const untrusted = trust === null ? new Map<DeclaredHook, string>() : untrustedHooks(snapshot, trust);
  const switchedOff = new Map(snapshot.disabled.map((d) => [`${d.hook.file}\0${d.hook.path}`, disabledWhy(d)]));
  for (const w of snapshot.overruled) switchedOff.set(`${w.copy.file}\0${w.copy.path}`, weakerCopyWhy(w));

  let configured = 0;
  let running = 0;
  const skipped: SkippedHook[] = [];
  const documented = new Set<string>();
  for (const part of snapshot.document) {
    const source = byPath.get(part.file);
    if (source === undefined) continue;
    documented.add(source.display);
    for (const path of entryPaths(part.hooks)) {
      configured++;
      const hook = loaded.get(`${source.display}\0${path}`);
      const notTrusted = hook && untrusted.get(hook);
      if (hook && notTrusted === undefined) {
        running++;
        continue;
      }
      const off = switchedOff.get(`${source.display}\0${path}`);
      const why = notTrusted ?? off ?? whyNotLoaded(warnings, source.display, path);
      skipped.push({ level: source.plugin ? "plugin" : source.level, file: source.display, path, why });
    }
  }
  const unreadFiles = snapshot.sources
    .filter((s) => s.state !== "missing" && !documented.has(s.display))
    .flatMap((s) => {
      const w = warnings.find((x) => x.place.file === s.display && x.place.path === null);
      // A file read as JSON without a hooks section holds no hooks: nothing to list.
      return w === undefined ? [] : [{ level: s.plugin ? "plugin" : s.level, file: s.display, why: w.message }];
    });
  return { configured, loaded: running, skipped, unreadFiles };
}

/** Each handler entry's path (`hooks.E[g].hooks[h]`); an event or group that is not the expected shape, as one entry. */
function* entryPaths(section: unknown): Generator<string> {
  if (section === null || typeof section !== "object" || Array.isArray(section)) return;
  for (const [event, groups] of Object.entries(section)) {
    if (!Array.isArray(groups)) {
      yield formatPath(["hooks", event]);
      continue;
    }
    for (let g = 0; g < groups.length; g++) {
      const hooks = (groups[g] as { hooks?: unknown } | null)?.hooks;
      if (!Array.isArray(hooks) || hooks.length === 0) {
        if (!Array.isArray(hooks)) yield formatPath(["hooks", event, g]);
        continue;
      }
      for (let h = 0; h < hooks.length; h++) yield formatPath(["hooks", event, g, "hooks", h]);
    }
  }
}

/** The reader's warning about this entry, its own fields first, then its group's, its event's, its file's. */
function whyNotLoaded(warnings: readonly SplitWarning[], file: string, path: string): string {
  const ofFile = warnings.filter((w) => w.place.file === file);
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
