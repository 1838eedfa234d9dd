import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { describeJsonError } from "../json/describeJsonError.js";
import { lazy } from "../schema/lazy.js";
import { oneLineText } from "../text/oneLine.js";
import type { PluginRequest, MissingPlugin } from "./plugins.js";
import { readText } from "./metadataFile.js";

/** Claude Code's installed and enabled plugins: what the claude dialect loads besides the settings files. */

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
