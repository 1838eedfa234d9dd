import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { defaultLogPath } from "../store/logPath.js";
import { isPostgresUrl } from "../store/openStore.js";
import { QhooksError } from "../errors.js";
import { dialectOf } from "../settings/settingsPlan.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { oneLineText } from "../text/oneLine.js";
import { hostDialect } from "../hosts/hosts.js";
import { ColourChoiceSchema, type ColourChoice } from "./output/colour.js";

/** What every command needs to know about where it runs. */
export interface CliContext {
  /** Whose settings levels are read (`--dialect`, else $QHOOKS_DIALECT, else qoder). */
  readonly dialect: Dialect;
  readonly projectDir: string;
  readonly homeDir: string;
  /** The log file or PostgreSQL URL: `--db`, else $QHOOKS_DB, else ~/.qoder-cn/qhooks/events.db. */
  readonly dbPath: string;
  readonly env: NodeJS.ProcessEnv;
  /** `--color`: whether tables and listings on a terminal show decisions and failures in colour. */
  readonly colour: ColourChoice;
}

export function cliContext(command: Command): CliContext {
  const globals = command.optsWithGlobals<{ db?: string; projectDir?: string; dialect?: string; color?: string }>();
  const env = process.env;
  const homeDir = homedir();
  const dialect = dialectOf(globals.dialect, env);
  // The host's hooks environment names the project (CLAUDE_PROJECT_DIR in front of Claude Code).
  const fromEnv = hostDialect(dialect)
    .projectDirVariables.map((name) => env[name])
    .find((value) => value !== undefined);
  const projectDir = resolve(globals.projectDir ?? fromEnv ?? process.cwd());
  const dbPath = globals.db !== undefined ? (isPostgresUrl(globals.db) ? globals.db : resolve(globals.db)) : defaultLogPath(env, homeDir);
  // Commander checked the choice; auto when the flag is absent.
  const colour = ColourChoiceSchema.catch("auto").parse(globals.color);
  return { dialect, projectDir, homeDir, dbPath, env, colour };
}

/** Hooks run in the project directory: a missing one is the user's mistake, said before anything runs. */
export function requireProjectDir(context: CliContext): string {
  if (!existsSync(context.projectDir) || !statSync(context.projectDir).isDirectory()) {
    throw new QhooksError(
      "usage",
      `project directory ${context.projectDir} does not exist (--project-dir, ${hostDialect(context.dialect)
        .projectDirVariables.map((name) => `$${name}`)
        .join(", ")} or the working directory)`,
    );
  }
  return context.projectDir;
}

/**
 * `--settings` files replace the settings levels: a mistyped one would judge with no hooks at all, so each must
 * exist (what it holds is read, and warned about, like any settings file).
 */
export function requireSettingsFiles(files: readonly string[]): void {
  for (const f of files) if (!existsSync(resolve(f))) throw new QhooksError("usage", `--settings ${oneLineText(f)}: no such file`);
}
