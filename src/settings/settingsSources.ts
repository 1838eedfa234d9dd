import { isAbsolute, resolve } from "node:path";
import { DEFAULT_DIALECT, type Dialect } from "../hosts/hostDialect.js";
import { hostDialect } from "../hosts/hosts.js";
import type { HookPlugin } from "../core/hookDescriptor.js";

/** One settings file qhooks reads, and how to name it in messages. */
export interface SettingsSource {
  /** `user`, `project`, `local`, `plugin`, or (for `--settings` files) the file's absolute path. */
  readonly level: string;
  readonly path: string;
  /** How warnings name the file: `~/.qoder-cn/settings.json`, `.qoder/settings.json`, or an absolute path. */
  readonly display: string;
  /** Named on purpose (`--settings`, `settingsFiles`): a missing file is then a mistake worth a warning. */
  readonly explicit?: boolean;
  /** Set for a plugin's hooks file. */
  readonly plugin?: HookPlugin;
  /** The host whose file it is: its defaults apply to what the file leaves out (the default dialect's when absent). */
  readonly dialect?: Dialect;
}

/** The settings levels of a host (user, project, local...), lowest priority first; `env` may move machine-wide ones. */
export function discoverSettings(
  homeDir: string,
  projectDir: string,
  dialect: Dialect = DEFAULT_DIALECT,
  env: Readonly<Record<string, string | undefined>> = {},
): SettingsSource[] {
  return hostDialect(dialect)
    .settingsLevels(homeDir, projectDir, env)
    .map((l) => ({ level: l.level, path: l.path, display: l.display, dialect }));
}

/** `--settings` files replace discovery; each is its own level, named by its absolute path. */
export function explicitSettings(files: readonly string[], baseDir: string, dialect: Dialect = DEFAULT_DIALECT): SettingsSource[] {
  return files.map((file) => {
    const path = isAbsolute(file) ? file : resolve(baseDir, file);
    return { level: path, path, display: path, explicit: true, dialect };
  });
}
