import { existsSync, readdirSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { localDataDir } from "../core/dataDir.js";
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
  /** A named file (`--settings`) that lies inside the project: the project's to write, so of the project's trust. */
  readonly insideProject?: boolean;
  /**
   * A file of the machine's managed levels (`system`, `system-defaults`) that lies inside the project (its path moved
   * there by the environment): the project can write it, so it is read at the project's level. The managed level it
   * was named for, for the warning that says so.
   */
  readonly managedInProject?: string;
  /** Set for a plugin's hooks file. */
  readonly plugin?: HookPlugin;
  /** The host whose file it is: its defaults apply to what the file leaves out (the default dialect's when absent). */
  readonly dialect?: Dialect;
  /** The host reads it as JSONC: comments and trailing commas (Copilot CLI's `settings.json`). */
  readonly comments?: boolean;
  /** Another host's file this host reads too (Claude Code's `.claude/settings.json`, read by Copilot CLI). */
  readonly ownedBy?: Dialect;
}

/**
 * The user's shared hooks, `~/.qhooks/hooks.json`: written once, run for every host's events (each host's event
 * names map to qhooks' own). It is of the user level (a project cannot weaken its guards) and in qhooks' own shape
 * (`PreToolUse`..., timeouts in seconds), so it names no dialect: it is read with the default one's names.
 */
export const sharedHooksSource = (homeDir: string): SettingsSource => ({
  level: "user",
  path: join(localDataDir(homeDir), "hooks.json"),
  display: "~/.qhooks/hooks.json",
});

/**
 * The settings levels of a host (user, project, local...), lowest priority first, after the user's shared hooks
 * file (`sharedHooksSource`); `env` may move machine-wide ones.
 */
export function discoverSettings(
  homeDir: string,
  projectDir: string,
  dialect: Dialect = DEFAULT_DIALECT,
  env: Readonly<Record<string, string | undefined>> = {},
): SettingsSource[] {
  // Only when it exists: a missing shared file is no level at all, so the logged configuration (and its hash) of a
  // user without one stays as it was. A bus started before the file was made picks it up when restarted.
  const shared = sharedHooksSource(homeDir);
  return [
    ...(existsSync(shared.path) ? [shared] : []),
    ...hostDialect(dialect)
      .settingsLevels(homeDir, projectDir, env)
      .flatMap((l): SettingsSource[] => {
        const files = l.folder === undefined ? [] : jsonFilesIn(l.folder.path);
        const more = { ...(l.comments === true ? { comments: true } : {}), ...(l.ownedBy !== undefined ? { ownedBy: l.ownedBy } : {}) };
        if (l.folder === undefined || files.length === 0) return [{ level: l.level, path: l.path, display: l.display, dialect, ...more }];
        const { path, display } = l.folder;
        return files.map((name) => ({ level: l.level, path: join(path, name), display: `${display}/${name}`, dialect }));
      })
      .map((source) =>
        MANAGED_LEVELS.has(source.level) && isInProject(source.path, projectDir) ? { ...source, level: "project", managedInProject: source.level } : source,
      ),
  ];
}

/**
 * Whether a file lies inside the project, its links followed where they exist: a machine-wide path pointed at the
 * project (or at a link into it) must not lend the project's file the machine's rank.
 */
function isInProject(path: string, projectDir: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return isInside(resolve(path), resolve(projectDir)) || isInside(real(path), real(projectDir));
}

/** The `*.json` files of a folder level, in name order; none when it is missing or unreadable. */
function jsonFilesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.name.endsWith(".json") && (e.isFile() || e.isSymbolicLink()))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * `--settings` files replace discovery; each is its own level, named by its absolute path. One inside `projectDir`
 * (when given) is marked so: the project can write it.
 */
export function explicitSettings(files: readonly string[], baseDir: string, dialect: Dialect = DEFAULT_DIALECT, projectDir?: string): SettingsSource[] {
  return files.map((file) => {
    const path = isAbsolute(file) ? file : resolve(baseDir, file);
    const inside = projectDir !== undefined && isInside(path, resolve(projectDir));
    return { level: path, path, display: path, explicit: true, dialect, ...(inside ? { insideProject: true } : {}) };
  });
}

/**
 * The levels of the machine's managed settings that qhooks reads: Gemini CLI's system files (`system-defaults`,
 * `system`), written by the machine's administrator outside any project. (Claude Code's managed settings are where
 * qhooks is installed; qhooks does not read them.)
 */
export const MANAGED_LEVELS: ReadonlySet<string> = new Set(["system-defaults", "system"]);

/**
 * The files whose word on guards is final: the user level, the machine's managed settings, or a `--settings` file
 * outside the project. The project's file, its local settings, a plugin's and a `--settings` file inside the
 * project are of lower trust.
 */
export const isUserTier = (source: SettingsSource): boolean =>
  source.plugin === undefined && (source.level === "user" || MANAGED_LEVELS.has(source.level) || (source.explicit === true && source.insideProject !== true));

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}
