import { isAbsolute, resolve } from "node:path";
import { QhooksError } from "../errors.js";
import type { PluginPlan } from "./loadSettings.js";
import { DEFAULT_DIALECT, DIALECTS, type Dialect } from "../hosts/hostDialect.js";
import { hostDialect } from "../hosts/hosts.js";
import { discoverSettings, explicitSettings, type SettingsSource } from "./settingsSources.js";

/** What decides which hooks apply: whose settings (dialect), which files, which plugins. */
export interface SettingsChoice {
  readonly homeDir: string;
  readonly projectDir: string;
  readonly dialect?: Dialect | undefined;
  /** Exactly these files (even none) instead of the dialect's three levels; undefined: the three levels. */
  readonly settingsFiles?: readonly string[] | undefined;
  /** Plugin folders (Claude Code's layout) whose hooks apply as well. */
  readonly plugins?: readonly string[] | undefined;
  /** Where relative `settingsFiles` and `plugins` are resolved. */
  readonly baseDir: string;
  /** What may move a host's machine-wide settings files ($GEMINI_CLI_SYSTEM_SETTINGS_PATH). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

export interface SettingsPlan {
  readonly sources: SettingsSource[];
  readonly plugins: PluginPlan;
}

/** The sources and plugins to load for a choice; the claude dialect also loads the plugins Claude Code has enabled. */
export function planSettings(choice: SettingsChoice): SettingsPlan {
  const dialect = choice.dialect ?? DEFAULT_DIALECT;
  const sources =
    choice.settingsFiles !== undefined
      ? explicitSettings(choice.settingsFiles, choice.baseDir, dialect, choice.projectDir)
      : discoverSettings(choice.homeDir, choice.projectDir, dialect, choice.env);
  const folders = (choice.plugins ?? []).map((p) => (isAbsolute(p) ? p : resolve(choice.baseDir, p)));
  const host = hostDialect(dialect);
  // `--settings` replaces the host's own files: its installed plugins are part of those.
  const installed = choice.settingsFiles === undefined ? (host.installedPlugins?.(choice.homeDir, choice.env ?? {}) ?? null) : null;
  return {
    sources,
    plugins: {
      folders,
      homeDir: choice.homeDir,
      dialect,
      claude: host.loadsEnabledPlugins ? { projectDir: choice.projectDir } : null,
      ...(installed !== null ? { installed } : {}),
    },
  };
}

/** The dialect asked for, else `$QHOOKS_DIALECT`, else qoder; a value that is neither is a usage error. */
export function dialectOf(asked: string | undefined, env: Readonly<Record<string, string | undefined>>): Dialect {
  const value = asked ?? (env.QHOOKS_DIALECT?.trim() || undefined);
  if (value === undefined) return DEFAULT_DIALECT;
  if ((DIALECTS as readonly string[]).includes(value)) return value as Dialect;
  const where = asked === undefined ? `QHOOKS_DIALECT=${value}` : `--dialect ${value}`;
  throw new QhooksError("usage", `${where}: expected ${DIALECTS.slice(0, -1).join(", ")} or ${DIALECTS.at(-1)}`);
}
