import type { InstalledPlugins } from "../hosts/hostDialect.js";
import { installedPluginRequests } from "./installedPlugins.js";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { EventName } from "../schema/events.js";
import { messageOf } from "../errors.js";
import { canonicalJson, sha256Hex } from "../json/canonicalHash.js";
import { parseSettingsFile, type ParsedSettingsFile } from "./parseSettingsFile.js";
import { loadPlugins, pluginFileOutsideText, type MissingPlugin, type PluginRequest } from "./plugins.js";
import { claudePluginRequests, type EnabledEntry } from "./claudePlugins.js";
import { readSettingsSource, type SettingsRead } from "./readSettingsSource.js";
import { isUserTier, type SettingsSource } from "./settingsSources.js";
import { applySwitches, type DisabledHook } from "./switchedOff.js";
import { keepGuards, weakerCopyText, type WeakerCopy } from "./guardPrecedence.js";
import { DEFAULT_DIALECT, type Dialect } from "../hosts/hostDialect.js";
import { builtInRedactor, createRedactor, type RedactPattern, type Redactor } from "../redact/redactor.js";
import { capOf, keptStopBlockCaps, type StopBlockCapSetting } from "./stopBlockCap.js";
import type { DeclaredHook } from "../core/hookDescriptor.js";
import type { BudgetSettings, ReplayStub } from "../schema/settings.js";
import { currentHookName, hooksNamed, uniqueHookNames } from "./hookNames.js";
import { budgetByName } from "./budgetByName.js";

export { MAX_SETTINGS_BYTES, readSettingsSource, type SettingsRead } from "./readSettingsSource.js";
export type { DisabledHook } from "./switchedOff.js";
export type { WeakerCopy } from "./guardPrecedence.js";

/**
 * One immutable view of the hook configuration. A dispatch judges its event with exactly one snapshot, and the
 * log traces every decision to the snapshot's hash.
 */
export interface SettingsSnapshot {
  /** sha256 of the normalised hooks sections and warnings of every source. */
  readonly hash: string;
  /** The host whose settings these are (its defaults apply): what replay and hook tests judge a logged event by. */
  readonly dialect: Dialect;
  /**
   * Hooks switched off (`disableAllHooks: true`, `qhooks.disabled`, this run's `--no-hooks`), each with what did it;
   * not in `hooks`.
   */
  readonly disabled: readonly DisabledHook[];
  /** Copies of the user's guards in lower-trust files that would weaken them: ignored (one warning each); not in `hooks`. */
  readonly overruled: readonly WeakerCopy[];
  readonly sources: ReadonlyArray<SettingsSource & { readonly state: SettingsRead["state"] }>;
  /** Every valid handler, in level order then declaration order. */
  readonly hooks: readonly DeclaredHook[];
  readonly byEvent: ReadonlyMap<EventName, readonly DeclaredHook[]>;
  readonly warnings: readonly string[];
  /**
   * The Stop-loop cap the settings give: the highest-priority of the user's own files that sets it, raised (never
   * lowered) by the project's, local and plugin files; null when none sets one. Under `requireTrust` only the user's
   * own files count: see `stopBlockCaps`.
   */
  readonly stopBlockCap: number | null;
  /** Each file's cap that `stopBlockCap` was made of (lower ones from others' files left out), lowest priority first. */
  readonly stopBlockCaps: readonly StopBlockCapSetting[];
  /**
   * `qhooks.requireTrust` of the user-level file; null when no user-level file is among the sources (`--settings`
   * replaced discovery: the trust check then reads the user-level file itself).
   */
  readonly requireTrust: boolean | null;
  /**
   * What the log keeps of an event is redacted by: the built-in detectors, then the `qhooks.redact` patterns of every
   * file (a file can only add patterns: more is redacted, never less).
   */
  readonly redactor: Redactor;
  /** `qhooks.retention` of the user-level file (`90d`): what `qhooks prune` removes by default. Null when unset. */
  readonly retention: string | null;
  /**
   * `qhooks.replay` of every file: the hooks `qhooks replay` does not run, and the stub answers it takes instead of
   * running others, by hook name. Stubs of a higher-priority file replace a lower one's for the same hook. Not part
   * of the hash: it changes replays only, never what a live event is judged by.
   */
  readonly replay: ReplayPlanSettings;
  /**
   * `qhooks.notify` of the user's own files (the user-level file, or a `--settings` file named on the command line;
   * the highest-priority one that sets it), true when none does. Other files cannot change it (one warning).
   */
  readonly notify: boolean;
  /**
   * `qhooks.budget` of the user's own files (the highest-priority one that sets it); null when none does. Other files
   * cannot set it (one warning): a project raising a limit would hide what its hooks cost.
   */
  readonly budget?: BudgetSettings | null;
  /** Each hook's name under the old default (its whole command) to the name it has now, where they differ. */
  readonly hookAliases?: ReadonlyMap<string, string>;
  /** Plugins asked for that load no hooks (folder gone, enabled but not installed): their guards are off. */
  readonly missingPlugins: readonly MissingPlugin[];
  /** Every file whose change can change this configuration (plugin manifests and folders included), for watchers. */
  readonly watched: readonly string[];
  /** What the log keeps of this configuration: the `hooks` sections only, never other settings. */
  readonly document: ReadonlyArray<{ readonly level: string; readonly file: string; readonly plugin?: string; readonly hooks: unknown }>;
}

/** What the settings say about running hooks in replays (`qhooks.replay`). */
export interface ReplayPlanSettings {
  readonly skip: readonly string[];
  readonly stub: ReadonlyMap<string, ReplayStub>;
}

/** Where plugins come from, besides the `qhooks.plugins` lists of the settings files. */
export interface PluginPlan {
  /** Plugin folders named by the caller (`--plugin`, the library's `plugins` option), absolute. */
  readonly folders: readonly string[];
  /** What `~` means in `qhooks.plugins`, and where Claude Code keeps its plugins. */
  readonly homeDir: string;
  /** The host whose defaults apply to the plugins' hooks (the default dialect's when absent). */
  readonly dialect?: Dialect;
  /** The claude dialect: also load the plugins Claude Code has enabled for this project. */
  readonly claude: { readonly projectDir: string } | null;
  /** A host that loads every plugin installed in a folder (Copilot CLI): that folder and its plugins' layout. */
  readonly installed?: InstalledPlugins | null;
}

/** Reads and validates every source, then the plugins they (and the caller) name; never throws for what files contain. */
export function loadSettings(sources: readonly SettingsSource[], plugins: PluginPlan = { folders: [], homeDir: homedir(), claude: null }): SettingsSnapshot {
  const files = sources.map((source) => parseRead(source, readSettingsSource(source)));
  const requests: PluginRequest[] = plugins.folders.map((root) => ({ root, namedBy: "plugin folder", explicit: true }));
  const warnings: string[] = [];
  const missing: MissingPlugin[] = [];
  const watched = sources.map((s) => s.path);
  for (const { source, parsed } of files) {
    for (const { folder, path } of parsed?.qhooks.plugins ?? []) {
      requests.push({ root: resolvePluginFolder(folder, source, plugins.homeDir), namedBy: `${source.display}: ${path}`, explicit: true });
    }
  }
  if (plugins.claude) {
    const enabled = new Map<string, EnabledEntry>();
    for (const { source, parsed } of files) for (const [id, on] of parsed?.enabledPlugins ?? []) enabled.set(id, { enabled: on, file: source.display });
    const claude = claudePluginRequests(enabled, plugins.homeDir, plugins.claude.projectDir);
    // Loops, never push(...list): a spread passes each element on the stack (about 125,000 overflow it).
    for (const r of claude.requests) requests.push(r);
    for (const w of claude.warnings) warnings.push(w);
    for (const m of claude.missing) missing.push(m);
    for (const w of claude.watched) watched.push(w);
  }
  if (plugins.installed) {
    watched.push(plugins.installed.dir);
    for (const r of installedPluginRequests(plugins.installed)) requests.push(r);
  }
  const loaded = loadPlugins(requests, plugins.homeDir, readSettingsSource, plugins.dialect);
  for (const w of loaded.watched) watched.push(w);
  // Plugins first: the lowest priority, so that the user's own files keep the last word on `updatedInput`.
  const parts = [...loaded.sources.map((source, i) => parseRead(source, loaded.reads[i]!)), ...files];
  const snapshot = assemble(parts, [...warnings, ...loaded.warnings, ...loaded.outside.map(pluginFileOutsideText)], watched);
  return { ...snapshot, missingPlugins: [...missing, ...loaded.missing] };
}

/** A snapshot of exactly these sources and their contents (no plugin discovery): the pure part of loadSettings. */
export function buildSnapshot(sources: readonly SettingsSource[], reads: readonly SettingsRead[]): SettingsSnapshot {
  return assemble(
    sources.map((source, i) => parseRead(source, reads[i]!)),
    [],
    sources.map((s) => s.path),
  );
}

interface Part {
  readonly source: SettingsSource;
  readonly read: SettingsRead;
  readonly parsed: ParsedSettingsFile | null;
  /** A bug met while parsing this file: it costs this file, never the other levels' guards. */
  readonly failure?: string;
}

function parseRead(source: SettingsSource, read: SettingsRead): Part {
  if (read.state !== "loaded") return { source, read, parsed: null };
  try {
    return { source, read, parsed: parseSettingsFile(source, read.text) };
  } catch (e) {
    return { source, read, parsed: null, failure: `${source.display}: internal error while reading it (${messageOf(e)}); this file is skipped` };
  }
}

/** `~/x`, an absolute path, or a path relative to the directory of the settings file that names it. */
function resolvePluginFolder(folder: string, source: SettingsSource, homeDir: string): string {
  if (folder === "~" || folder.startsWith("~/")) return join(homeDir, folder.slice(1));
  return isAbsolute(folder) ? folder : resolve(dirname(source.path), folder);
}

function assemble(parts: readonly Part[], pluginWarnings: readonly string[], watched: readonly string[]): SettingsSnapshot {
  const hooks: DeclaredHook[] = [];
  const warnings: string[] = [...pluginWarnings];
  const document: { level: string; file: string; plugin?: string; hooks: unknown }[] = [];
  const caps: StopBlockCapSetting[] = [];
  let requireTrust: boolean | null = parts.some((p) => p.source.level === "user") ? false : null;
  let retention: string | null = null;
  let notify = true;
  let budget: BudgetSettings | null = null;
  // `disableAllHooks: true`, by the file that says it: the user's own switches every hook off; a project's, its local
  // settings' or a plugin's only its own tier's (project, local, plugins), never the user's guards.
  let offForAllBy: string | null = null;
  let offForSharedBy: string | null = null;
  // A lower-trust file's `disableAllHooks: false`, and its `qhooks.disabled`: both ignored, each said naming your files.
  let onAgainBy: string | null = null;
  const lowerDisabled: { by: string; names: readonly string[] }[] = [];
  const offByName = new Map<string, string>();
  const offByHostName = new Map<string, { by: string; own: boolean }>();
  const redact: RedactPattern[] = [];
  const replaySkip = new Set<string>();
  const replayStub = new Map<string, ReplayStub>();
  for (const { source, read, parsed, failure } of parts) {
    if (read.state === "unreadable") warnings.push(`${source.display}: ${read.why}; this file is skipped`);
    if (failure !== undefined) warnings.push(failure);
    // A mistyped --settings path would otherwise turn every guard in it off without a word.
    if (read.state === "missing" && source.explicit) warnings.push(`${source.display}: does not exist; no hooks from it`);
    if (read.state !== "loaded" || parsed === null) continue;
    if (source.managedInProject !== undefined)
      warnings.push(
        `${source.display}: the machine's ${source.managedInProject} settings file lies inside the project, which can write it; read at the project's level (its hooks need trust, and cannot switch off or weaken yours)`,
      );
    if (read.worldWritable) warnings.push(`${source.display}: writable by every user; anyone here can change these hooks`);
    else if (read.replaceable) warnings.push(`${source.display}: in a directory writable by every user; anyone here can replace these hooks`);
    for (const hook of parsed.hooks) hooks.push(hook);
    for (const warning of parsed.warnings) warnings.push(warning);
    for (const name of parsed.hostDisabled) {
      const own = isUserTier(source);
      const had = offByHostName.get(name);
      if (had === undefined || (own && !had.own)) offByHostName.set(name, { by: source.display, own });
    }
    if (parsed.disableAllHooks === false && !isUserTier(source)) onAgainBy ??= source.display;
    if (parsed.disableAllHooks === true) {
      // A --settings file inside the project is the project's to write: its switch is a lower-trust one.
      if (isUserTier(source)) offForAllBy ??= source.display;
      else offForSharedBy ??= source.display;
    }
    if (parsed.qhooks.stopBlockCap !== undefined) {
      const own = isUserTier(source);
      caps.push({ level: source.level, display: source.display, pluginRoot: source.plugin?.root ?? null, own, cap: parsed.qhooks.stopBlockCap });
    }
    if (parsed.qhooks.requireTrust !== undefined) {
      // The user's own switch: a project that could set it could switch off the check that guards against it.
      if (source.level === "user") requireTrust = parsed.qhooks.requireTrust;
      else warnings.push(`${source.display}: qhooks.requireTrust: read only from the user-level settings file; ignored here`);
    }
    for (const p of parsed.qhooks.redact) redact.push(p);
    for (const name of parsed.qhooks.replay?.skip ?? []) replaySkip.add(name);
    for (const [name, stub] of Object.entries(parsed.qhooks.replay?.stub ?? {})) replayStub.set(name, stub);
    for (const name of parsed.qhooks.disabled ?? []) {
      // Switching a guard off is the user's call: a project that could do it could switch off the user's guards.
      if (isUserTier(source)) {
        if (!offByName.has(name)) offByName.set(name, source.display);
      } else {
        // Said once the hooks are known: which of your hooks, in which file, it tried to switch off.
        lowerDisabled.push({ by: source.display, names: parsed.qhooks.disabled ?? [] });
        break;
      }
    }
    if (parsed.qhooks.retention !== undefined) {
      // Removing records is the user's call: a project that could set it could have its own traces removed.
      if (source.level === "user") retention = parsed.qhooks.retention;
      else warnings.push(`${source.display}: qhooks.retention: read only from the user-level settings file; ignored here`);
    }
    if (parsed.qhooks.budget !== undefined) {
      if (isUserTier(source)) budget = parsed.qhooks.budget;
      else warnings.push(userOnlyText(source.display, "qhooks.budget"));
    }
    if (parsed.qhooks.notify !== undefined) {
      // Safety first: a project that could set it could hide that its own hooks, or the user's, fail or do not run.
      if (isUserTier(source)) notify = parsed.qhooks.notify;
      else warnings.push(userOnlyText(source.display, "qhooks.notify"));
    }
    if (parsed.hooksSection !== undefined) {
      document.push(
        source.plugin
          ? { level: source.level, file: source.path, plugin: source.plugin.name, hooks: parsed.hooksSection }
          : { level: source.level, file: source.path, hooks: parsed.hooksSection },
      );
    }
  }

  // Short default names, unique in this configuration; names written under the old rule (whole commands) are read
  // as the names now in use.
  const renamed = uniqueHookNames(hooks);
  hooks.splice(0, hooks.length, ...renamed.hooks);
  const current = (name: string): string => currentHookName(renamed.aliases, name);
  // Your switches and limits follow your hook when another file's hook takes its short name: they name both then.
  const named = (name: string): readonly string[] => hooksNamed(renamed.aliases, renamed.shared, name);
  for (const [name, by] of [...offByName]) {
    const targets = named(name);
    if (targets.length === 1 && targets[0] === name) continue;
    offByName.delete(name);
    for (const target of targets) if (!offByName.has(target)) offByName.set(target, by);
  }
  // A host's own list of switched-off hooks names them by command (or their `name`).
  for (const [name, by] of [...offByHostName]) {
    if (current(name) === name) continue;
    offByHostName.delete(name);
    if (!offByHostName.has(current(name))) offByHostName.set(current(name), by);
  }
  for (const name of [...replaySkip]) {
    if (current(name) === name) continue;
    replaySkip.delete(name);
    replaySkip.add(current(name));
  }
  for (const [name, stub] of [...replayStub]) {
    if (current(name) === name) continue;
    replayStub.delete(name);
    if (!replayStub.has(current(name))) replayStub.set(current(name), stub);
  }
  if (budget?.hooks !== undefined) budget = { ...budget, hooks: budgetByName(budget.hooks, named) };
  const capped = keptStopBlockCaps(caps);
  for (const w of capped.warnings) warnings.push(w);
  const stopBlockCap = capOf(capped.kept);

  // Whose hooks a lower-trust switch cannot touch: by the file that declares them (a hook's level alone cannot tell a
  // --settings file outside the project from one inside it: both are named by their path).
  const userTier = new Set(parts.filter((p) => isUserTier(p.source)).map((p) => p.source.display));
  const isUserTierHook = (hook: DeclaredHook): boolean => hook.plugin === null && userTier.has(hook.file);
  // Switched off hooks are listed apart (qhooks hooks says by which file), never silently dropped.
  const switched = applySwitches(hooks, { allBy: offForAllBy, sharedBy: offForSharedBy, names: offByName, hostNames: offByHostName }, isUserTierHook);
  const { disabled } = switched;
  for (const w of switched.warnings) warnings.push(w);
  for (const w of lowerSwitchWarnings(hooks, isUserTierHook, current, lowerDisabled, offForAllBy === null ? null : { by: offForAllBy, onAgainBy }))
    warnings.push(w);
  // A lower-trust file cannot weaken the user's guard by declaring the same command with weaker settings.
  const guarded = keepGuards(switched.enabled, isUserTierHook);
  const enabled = guarded.kept;
  const overruled = guarded.ignored;
  for (const w of overruled) warnings.push(weakerCopyText(w));

  const byEvent = new Map<EventName, DeclaredHook[]>();
  for (const hook of enabled) {
    const list = byEvent.get(hook.event);
    if (list) list.push(hook);
    else byEvent.set(hook.event, [hook]);
  }
  // The host whose files these are: its defaults (timeouts) apply to what the files leave out.
  const dialect = parts.find((p) => p.source.dialect !== undefined)?.source.dialect ?? DEFAULT_DIALECT;
  // The cap, the trust switch and the host change decisions, so they are part of what identifies the config (only
  // when set: a config without them keeps the hash it always had).
  const hash = sha256Hex(
    canonicalJson({
      document,
      warnings,
      ...(stopBlockCap === null ? {} : { stopBlockCap }),
      ...(requireTrust === true ? { requireTrust } : {}),
      ...(dialect === DEFAULT_DIALECT ? {} : { dialect }),
      ...(disabled.length === 0 ? {} : { disabled: disabled.map((d) => `${d.hook.file}\0${d.hook.path}`) }),
    }),
  );
  return {
    hash,
    dialect,
    disabled,
    overruled,
    sources: parts.map(({ source, read }) => ({ ...source, state: read.state })),
    hooks: enabled,
    byEvent,
    warnings,
    stopBlockCap,
    stopBlockCaps: capped.kept,
    requireTrust,
    redactor: redact.length === 0 ? builtInRedactor : createRedactor(redact),
    retention,
    replay: { skip: [...replaySkip], stub: replayStub },
    hookAliases: renamed.aliases,
    notify,
    budget,
    missingPlugins: [],
    watched: [...new Set(watched)],
    document,
  };
}

/**
 * The warnings for switches a lower-trust file set and qhooks ignored, each naming that file and yours: its
 * `qhooks.disabled` (with the hooks of yours it names, and their files), and its `disableAllHooks: false` against
 * your `true`.
 */
function lowerSwitchWarnings(
  hooks: readonly DeclaredHook[],
  isUserTierHook: (hook: DeclaredHook) => boolean,
  current: (name: string) => string,
  lowerDisabled: readonly { by: string; names: readonly string[] }[],
  allOff: { by: string; onAgainBy: string | null } | null,
): string[] {
  const warnings: string[] = [];
  for (const { by, names } of lowerDisabled) {
    const wanted = new Set(names.map(current));
    const yours = [...new Set(hooks.filter((h) => isUserTierHook(h) && wanted.has(h.name)).map((h) => `${JSON.stringify(h.name)} of ${h.file}`))];
    const still = yours.length === 0 ? "" : `: ${yours.join(", ")} still run${yours.length === 1 ? "s" : ""}`;
    warnings.push(`${userOnlyText(by, "qhooks.disabled")}${still}`);
  }
  if (allOff?.onAgainBy) warnings.push(`${allOff.onAgainBy}: disableAllHooks: false does not turn back on the hooks ${allOff.by} switched off; ignored`);
  return warnings;
}

/** A setting a lower-trust file may not make, ignored: `<file>: <key>: read only from your own settings ...`. */
const userOnlyText = (file: string, key: string): string =>
  `${file}: ${key}: read only from your own settings (the user-level file, or a --settings file outside the project); ignored here`;
