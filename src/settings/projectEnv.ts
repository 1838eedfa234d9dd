import { HOSTS } from "../hosts/hosts.js";
import { readSettingsSource } from "./readSettingsSource.js";

/**
 * qhooks' variables that can weaken a guard when someone else sets them: switch every hook off, raise or drop the
 * Stop-loop cap, move the log (or keep none), change the evaluator of prompt hooks, change whose settings are read,
 * cut hooks' output (a deny cut short is no deny), stop the log's heads being signed, or make a live event look like a replay's, a test's or a hook's
 * own call.
 */
export const GUARDED_VARIABLES = [
  "QHOOKS_DISABLE",
  "QHOOKS_STOP_BLOCK_CAP",
  "QHOOKS_DB",
  "QHOOKS_DIALECT",
  "QHOOKS_EVALUATOR_URL",
  "QHOOKS_EVALUATOR_MODEL",
  "QHOOKS_EVALUATOR_API_KEY",
  "QHOOKS_MAX_OUTPUT",
  "QHOOKS_MAX_EVENT_OUTPUT",
  "QHOOKS_REPLAY",
  "QHOOKS_TEST",
  "QHOOKS_CALL_CHAIN",
  "QHOOKS_SIGN_EVERY",
] as const;

/** One settings file's `env` block, and whether the file is the user's own (user level) or a project's. */
export interface EnvBlock {
  readonly file: string;
  readonly own: boolean;
  readonly env: Readonly<Record<string, unknown>>;
}

/**
 * A guarded variable the environment holds with the value a project's settings `env` block gives it (the host puts
 * that block into the environment of the hooks it runs, qhooks included), which no file of the user's own sets to
 * the same value: qhooks ignores it.
 */
export interface ProjectEnvOverride {
  readonly kind: "project-env";
  readonly variable: string;
  /** The project's file that sets it. */
  readonly file: string;
}

/** The guarded variables of `env` that come from a project's `env` block and not from the user's own. */
export function projectEnvOverrides(env: Readonly<Record<string, string | undefined>>, blocks: readonly EnvBlock[]): ProjectEnvOverride[] {
  const overrides: ProjectEnvOverride[] = [];
  for (const variable of GUARDED_VARIABLES) {
    const value = env[variable];
    if (value === undefined) continue;
    const fromProject = blocks.find((b) => !b.own && b.env[variable] === value);
    if (fromProject === undefined) continue;
    if (blocks.some((b) => b.own && b.env[variable] === value)) continue;
    overrides.push({ kind: "project-env", variable, file: fromProject.file });
  }
  return overrides;
}

/** Every host's user, project and local settings files' `env` blocks (a file that cannot be read or parsed has none). */
export function readEnvBlocks(homeDir: string, projectDir: string): EnvBlock[] {
  const blocks: EnvBlock[] = [];
  for (const host of Object.values(HOSTS)) {
    for (const level of host.settingsLevels(homeDir, projectDir)) {
      // Another host's file (Claude Code's, which Copilot CLI reads too) is read once, as that host's.
      if (level.ownedBy !== undefined) continue;
      const read = readSettingsSource({ level: level.level, path: level.path, display: level.display });
      if (read.state !== "loaded") continue;
      let document: unknown;
      try {
        document = JSON.parse(read.text);
      } catch {
        continue;
      }
      const env = (document as { env?: unknown } | null)?.env;
      if (typeof env !== "object" || env === null || Array.isArray(env)) continue;
      blocks.push({ file: level.display, own: level.level === "user", env: env as Record<string, unknown> });
    }
  }
  return blocks;
}

/**
 * The environment qhooks acts on: the process's, less the guarded variables a project set and the user did not.
 * Reads the settings files only when a guarded variable is set at all (most runs have none).
 */
export function guardEnvironment(
  env: NodeJS.ProcessEnv,
  homeDir: string,
  projectDir: string,
): { readonly env: NodeJS.ProcessEnv; readonly ignored: readonly ProjectEnvOverride[] } {
  if (!GUARDED_VARIABLES.some((v) => env[v] !== undefined)) return { env, ignored: [] };
  const ignored = projectEnvOverrides(env, readEnvBlocks(homeDir, projectDir));
  if (ignored.length === 0) return { env, ignored };
  const kept: NodeJS.ProcessEnv = { ...env };
  for (const o of ignored) delete kept[o.variable];
  return { env: kept, ignored };
}

/** The one warning line for an ignored variable. */
export function projectEnvText(o: ProjectEnvOverride): string {
  return `${o.file}: env.${o.variable}: ignored: a project's settings cannot set ${o.variable} for qhooks (it can weaken your guards); set it in your own settings' env or your shell`;
}
