import { realpathSync, statSync } from "node:fs";
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
import { readText } from "./metadataFile.js";

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
  /**
   * Where its manifest and hooks file may be, each list in order, the first that exists read (Copilot CLI's plugins);
   * Claude Code's layout (`.claude-plugin/plugin.json`, `hooks/hooks.json`) when absent.
   */
  readonly layout?: { readonly manifests: readonly string[]; readonly hooksFiles: readonly string[] };
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
  const manifestPath = join(root, firstExisting(root, request.layout?.manifests) ?? MANIFEST);
  const defaultHooks = join(root, firstExisting(root, request.layout?.hooksFiles) ?? DEFAULT_HOOKS);
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

/** The first of these paths (relative to `root`) that exists; null for none, or for no list (Claude Code's layout). */
function firstExisting(root: string, paths: readonly string[] | undefined): string | null {
  if (paths === undefined) return null;
  return paths.find((p) => statKind(join(root, p)) !== "missing") ?? paths[0] ?? null;
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
