import { isAbsolute, join, resolve } from "node:path";

/** One settings file qhooks reads, and how to name it in messages. */
export interface SettingsSource {
  /** `user`, `project`, `local`, or (for `--settings` files) the file's absolute path. */
  readonly level: string;
  readonly path: string;
  /** How warnings name the file: `~/.qoder-cn/settings.json`, `.qoder/settings.json`, or an absolute path. */
  readonly display: string;
  /** Named on purpose (`--settings`, `settingsFiles`): a missing file is then a mistake worth a warning. */
  readonly explicit?: boolean;
}

/** The three levels of contract 1.1, lowest priority first. */
export function discoverSettings(homeDir: string, projectDir: string): SettingsSource[] {
  return [
    { level: "user", path: join(homeDir, ".qoder-cn", "settings.json"), display: "~/.qoder-cn/settings.json" },
    { level: "project", path: join(projectDir, ".qoder", "settings.json"), display: ".qoder/settings.json" },
    { level: "local", path: join(projectDir, ".qoder", "settings.local.json"), display: ".qoder/settings.local.json" },
  ];
}

/** `--settings` files replace discovery; each is its own level, named by its absolute path. */
export function explicitSettings(files: readonly string[], baseDir: string): SettingsSource[] {
  return files.map((file) => {
    const path = isAbsolute(file) ? file : resolve(baseDir, file);
    return { level: path, path, display: path, explicit: true };
  });
}
