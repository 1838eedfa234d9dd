import { readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { z } from "zod";
import { describeJsonError } from "../json/describeJsonError.js";
import { lazy } from "../schema/lazy.js";
import { firstIssueLine } from "../schema/zodIssues.js";
import { oneLineText } from "../text/oneLine.js";
import type { SettingsRead } from "./readSettingsSource.js";
import type { HookPlugin } from "../core/hookDescriptor.js";
import type { SettingsSource } from "./settingsSources.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { readRegularFile } from "./readSettingsSource.js";

/** A plugin someone asked for: a folder, and who named it (for messages). */
export interface PluginRequest {
  readonly root: string;
  /** `--plugin`, `plugins option`, `.qoder/settings.json: qhooks.plugins[0]`, `.claude/settings.json: enabledPlugins`... */
  readonly namedBy: string;
  /** Named on purpose: a folder without hooks is then worth a warning (an enabled Claude Code plugin may have none). */
  readonly explicit: boolean;
  /** Claude Code's plugin id (`name@marketplace`); `<name>@inline` for a folder given directly. */
  readonly id?: string;
  /** Loaded only if its manifest does not say `defaultEnabled: false` (installed, no enabledPlugins entry). */
  readonly byDefault?: boolean;
}

/** What the plugins add to a configuration: their hooks files (already read), warnings, and files to watch. */
export interface PluginLoad {
  readonly sources: SettingsSource[];
  readonly reads: SettingsRead[];
  readonly warnings: string[];
  /** Hooks files refused for lying outside their plugin's folder: one warning each (pluginFileOutsideText). */
  readonly outside: PluginFileOutside[];
  /** Plugins asked for that bring no hooks at all (folder gone, not installed): each is also one of `warnings`. */
  readonly missing: MissingPlugin[];
  readonly watched: string[];
}

/**
 * A plugin someone asked for that loads nothing: its guards are off. Kept apart from the warnings so that the
 * notices of `qhooks run --format hook` need not read messages to find them.
 */
export interface MissingPlugin {
  /** Claude Code's plugin id, or the folder as requested. */
  readonly plugin: string;
  /** Why, in a few words: `does not exist`, `enabled, but not installed`. */
  readonly why: string;
}

/**
 * A hooks file a plugin names (in its manifest, or its own hooks/hooks.json being a link) that lies outside the
 * plugin's folder once links are resolved: not read. A plugin brings its own files; `../other/hooks.json`, an
 * absolute path or a link elsewhere would load (or, for /etc/passwd, at least open) what the user never installed.
 */
export interface PluginFileOutside {
  readonly kind: "plugin-file-outside";
  /** Who named it: the manifest's path, or the plugin's folder for its hooks/hooks.json. */
  readonly namedBy: string;
  /** The file as named, resolved against the plugin's folder. */
  readonly path: string;
  /** The plugin's folder, links resolved. */
  readonly root: string;
}

export const pluginFileOutsideText = (w: PluginFileOutside): string =>
  `${w.namedBy}: hooks file ${oneLineText(w.path)} is outside the plugin's folder ${oneLineText(w.root)} (links resolved); not read`;

/** The part of `.claude-plugin/plugin.json` qhooks reads; Claude Code ignores fields it does not know, and so do we. */
const ManifestSchema = lazy(() =>
  z.looseObject(
    {
      name: z.string().min(1).optional().catch(undefined),
      defaultEnabled: z.boolean().optional().catch(undefined),
      hooks: z
        .union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown())], {
          error: "expected a hook file path, a list of paths, or the hooks inline",
        })
        .optional(),
    },
    { error: "expected an object" },
  ),
);

const MANIFEST = join(".claude-plugin", "plugin.json");
const DEFAULT_HOOKS = join("hooks", "hooks.json");

/** `~/.claude/plugins/data/<id>`, the id's characters outside [A-Za-z0-9_-] replaced by `-` (as Claude Code does). */
export const pluginDataDir = (homeDir: string, id: string): string => join(homeDir, ".claude", "plugins", "data", id.replace(/[^A-Za-z0-9_-]/g, "-"));

/**
 * Reads each requested plugin folder in Claude Code's layout: `.claude-plugin/plugin.json` (optional: its `name`,
 * and `hooks` naming more hook files or holding them inline) and `hooks/hooks.json`. Each hooks file becomes a
 * settings source of level `plugin`, read here. Never throws for what the folders hold.
 */
export function loadPlugins(
  requests: readonly PluginRequest[],
  homeDir: string,
  read: (source: SettingsSource) => SettingsRead,
  dialect?: Dialect,
): PluginLoad {
  const load: PluginLoad = { sources: [], reads: [], warnings: [], outside: [], missing: [], watched: [] };
  const seen = new Set<string>();
  for (const request of requests) {
    if (seen.has(request.root)) continue;
    seen.add(request.root);
    loadOne(request, homeDir, read, load, dialect);
  }
  return load;
}

function loadOne(request: PluginRequest, homeDir: string, readSource: (source: SettingsSource) => SettingsRead, load: PluginLoad, dialect?: Dialect): void {
  const { root } = request;
  const where = `${request.namedBy}: plugin ${oneLineText(root)}`;
  const plugin = request.id ?? root;
  const manifestPath = join(root, MANIFEST);
  const defaultHooks = join(root, DEFAULT_HOOKS);
  load.watched.push(root, manifestPath, defaultHooks);
  const kind = statKind(root);
  if (kind !== "directory") {
    const why = kind === "missing" ? "does not exist" : "is not a folder";
    load.warnings.push(`${where}: ${why}; no hooks from it`);
    load.missing.push({ plugin, why });
    return;
  }

  let name = basename(root);
  let extraHooks: string[] = [];
  let inline: unknown;
  const manifestText = readText(manifestPath);
  if (typeof manifestText === "string") {
    let json: unknown;
    try {
      json = JSON.parse(manifestText);
    } catch (e) {
      load.warnings.push(`${manifestPath}: not valid JSON (${describeJsonError(manifestText, e)}); the plugin is named after its folder`);
    }
    const manifest = ManifestSchema.safeParse(json);
    if (json !== undefined && !manifest.success) load.warnings.push(`${manifestPath}: ${firstIssueLine(manifest.error)}; the manifest is ignored`);
    if (manifest.success) {
      if (request.byDefault && manifest.data.defaultEnabled === false) return;
      name = manifest.data.name ?? name;
      const hooks = manifest.data.hooks;
      if (typeof hooks === "string") extraHooks = [hooks];
      else if (Array.isArray(hooks)) extraHooks = hooks;
      else if (hooks !== undefined) inline = hooks;
    }
  } else if (manifestText.error !== "missing") {
    load.warnings.push(`${manifestPath}: cannot be read (${manifestText.error}); the plugin is named after its folder`);
  }

  const hookPlugin: HookPlugin = { name, root, dataDir: pluginDataDir(homeDir, request.id ?? `${name}@inline`) };
  const files = [defaultHooks, ...extraHooks.map((p) => (isAbsolute(p) ? p : resolve(root, p)))].filter((p, i, all) => all.indexOf(p) === i);
  const realRoot = realPathOf(root);
  let found = 0;
  for (const path of files) {
    const explicit = path !== defaultHooks;
    if (!within(realRoot, realPathOf(path))) {
      load.outside.push({ kind: "plugin-file-outside", namedBy: explicit ? manifestPath : root, path, root: realRoot });
      found++;
      continue;
    }
    load.watched.push(path);
    const source: SettingsSource = { level: "plugin", path, display: path, plugin: hookPlugin, explicit, ...(dialect ? { dialect } : {}) };
    const read = readSource(source);
    if (read.state === "missing" && !explicit) continue;
    found++;
    load.sources.push(source);
    load.reads.push(read);
  }
  if (inline !== undefined) {
    found++;
    // A manifest's inline hooks are the hooks.json form ({"hooks": {...}}) or the events map itself.
    const hooks = typeof inline === "object" && inline !== null && "hooks" in inline ? inline : { hooks: inline };
    load.sources.push({ level: "plugin", path: manifestPath, display: `${manifestPath} (hooks)`, plugin: hookPlugin });
    load.reads.push({ state: "loaded", text: JSON.stringify(hooks), worldWritable: false });
  }
  if (found === 0 && request.explicit) {
    load.warnings.push(`${where}: has no ${DEFAULT_HOOKS}; no hooks from it`);
    load.missing.push({ plugin, why: `has no ${DEFAULT_HOOKS}` });
  }
}

/**
 * Where a path really is, links resolved; for a path that does not exist (yet), where its nearest existing folder
 * really is, with the rest appended (`path` is absolute and normalised: the rest holds no `..`).
 */
function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPathOf(parent), basename(path));
  }
}

const within = (root: string, path: string): boolean => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

function statKind(path: string): "directory" | "other" | "missing" {
  try {
    return statSync(path).isDirectory() ? "directory" : "other";
  } catch {
    return "missing";
  }
}

/** Largest manifest or installed-plugins file read; both are a few kilobytes. */
const MAX_METADATA_BYTES = 4 * 1024 * 1024;

/** A plugin manifest or Claude Code's installed-plugins file: only a regular file of sane size (a FIFO would block). */
function readText(path: string): string | { error: string } {
  const read = readRegularFile(path, MAX_METADATA_BYTES);
  if (read.state === "read") return read.bytes.toString("utf8");
  if (read.state === "missing") return { error: "missing" };
  if (read.state === "not-regular") return { error: "not a regular file" };
  if (read.state === "too-large") return { error: `larger than ${MAX_METADATA_BYTES} bytes` };
  return { error: read.code };
}

// ---- Claude Code's installed and enabled plugins (the claude dialect) ----

/** One entry of `~/.claude/plugins/installed_plugins.json` (version 1: one per plugin; version 2: a list per plugin). */
const InstallSchema = lazy(() =>
  z.looseObject({
    installPath: z.string().min(1),
    scope: z.string().optional().catch(undefined),
    projectPath: z.string().optional().catch(undefined),
  }),
);
const InstalledFileSchema = lazy(() =>
  z.looseObject({
    plugins: z.record(z.string(), z.unknown()),
  }),
);

/** An `enabledPlugins` value and the file that set it (the highest-priority file wins, as in Claude Code). */
export interface EnabledEntry {
  readonly enabled: boolean;
  readonly file: string;
}

export const installedPluginsFile = (homeDir: string): string => join(homeDir, ".claude", "plugins", "installed_plugins.json");

/**
 * The plugins Claude Code would load for this project: every `enabledPlugins` entry set to true (merged user, project,
 * local), and every installed plugin with no entry at all unless its manifest says `defaultEnabled: false`. Install
 * folders come from `~/.claude/plugins/installed_plugins.json` (entries of another project's scope are skipped), else
 * from the one version folder under `~/.claude/plugins/cache/<marketplace>/<name>/`.
 */
export function claudePluginRequests(
  enabled: ReadonlyMap<string, EnabledEntry>,
  homeDir: string,
  projectDir: string,
): { requests: PluginRequest[]; warnings: string[]; missing: MissingPlugin[]; watched: string[] } {
  const file = installedPluginsFile(homeDir);
  const warnings: string[] = [];
  const missing: MissingPlugin[] = [];
  const installed = readInstalled(file, projectDir, warnings);
  const requests: PluginRequest[] = [];
  for (const [id, entry] of enabled) {
    if (!entry.enabled) continue;
    const root = installed.get(id) ?? cachedVersion(homeDir, id);
    if (root === null) {
      warnings.push(
        `${entry.file}: enabledPlugins: ${oneLineText(id)} is enabled, but not installed (not in ~/.claude/plugins/installed_plugins.json); no hooks from it`,
      );
      missing.push({ plugin: id, why: "enabled, but not installed" });
      continue;
    }
    requests.push({ root, namedBy: `${entry.file}: enabledPlugins`, explicit: false, id });
  }
  for (const [id, root] of installed) {
    if (enabled.has(id)) continue;
    requests.push({ root, namedBy: "~/.claude/plugins/installed_plugins.json", explicit: false, id, byDefault: true });
  }
  return { requests, warnings, missing, watched: [file] };
}

function readInstalled(file: string, projectDir: string, warnings: string[]): Map<string, string> {
  const roots = new Map<string, string>();
  const text = readText(file);
  if (typeof text !== "string") {
    if (text.error !== "missing")
      warnings.push(`~/.claude/plugins/installed_plugins.json: cannot be read (${text.error}); Claude Code's installed plugins are not loaded`);
    return roots;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    warnings.push(`~/.claude/plugins/installed_plugins.json: not valid JSON (${describeJsonError(text, e)}); Claude Code's installed plugins are not loaded`);
    return roots;
  }
  const parsed = InstalledFileSchema.safeParse(json);
  if (!parsed.success) {
    warnings.push("~/.claude/plugins/installed_plugins.json: expected an object with a plugins map; Claude Code's installed plugins are not loaded");
    return roots;
  }
  for (const [id, value] of Object.entries(parsed.data.plugins)) {
    const entries = (Array.isArray(value) ? value : [value]).flatMap((v) => {
      const e = InstallSchema.safeParse(v);
      return e.success ? [e.data] : [];
    });
    // A project or local install belongs to its project; a user install (or one that names no project) to all.
    const mine = entries.filter((e) => e.projectPath === undefined || resolve(e.projectPath) === resolve(projectDir));
    const pick = mine.find((e) => e.scope === "local") ?? mine.find((e) => e.scope === "project") ?? mine[0];
    if (pick) roots.set(id, pick.installPath);
  }
  return roots;
}

/** `~/.claude/plugins/cache/<marketplace>/<name>/<version>` when there is exactly one version folder. */
function cachedVersion(homeDir: string, id: string): string | null {
  const at = id.lastIndexOf("@");
  if (at <= 0) return null;
  const dir = join(homeDir, ".claude", "plugins", "cache", id.slice(at + 1), id.slice(0, at));
  try {
    const versions = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory());
    return versions.length === 1 ? join(dir, versions[0]!.name) : null;
  } catch {
    return null;
  }
}
