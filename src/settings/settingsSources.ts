import { isAbsolute, join, resolve } from "node:path";
import type { HookPlugin } from "../core/hookDescriptor.js";

/**
 * Whose settings files qhooks reads: Qoder CN CLI's (`~/.qoder-cn/settings.json`, `.qoder/...`), or Claude Code's
 * own levels (`~/.claude/settings.json`, `.claude/...`) together with the plugins Claude Code has enabled.
 */
export const DIALECTS = ["qoder", "claude"] as const;
export type Dialect = (typeof DIALECTS)[number];

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
}

/** The three settings levels (user, project, local; or Claude Code's three), lowest priority first. */
export function discoverSettings(homeDir: string, projectDir: string, dialect: Dialect = "qoder"): SettingsSource[] {
  if (dialect === "claude") {
    return [
      { level: "user", path: join(homeDir, ".claude", "settings.json"), display: "~/.claude/settings.json" },
      { level: "project", path: join(projectDir, ".claude", "settings.json"), display: ".claude/settings.json" },
      { level: "local", path: join(projectDir, ".claude", "settings.local.json"), display: ".claude/settings.local.json" },
    ];
  }
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
