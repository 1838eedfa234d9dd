import { settleDataDirOnce } from "../store/dataDirMigration.js";
import { callerContext, type CallerContext, type CallerGlobals } from "../engine/callerContext.js";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { QhooksError } from "../errors.js";
import { err } from "./io.js";
import { oneLineText } from "../text/oneLine.js";
import { hostDialect } from "../hosts/hosts.js";
import { settingsFileProblem } from "../settings/settingsFileProblem.js";
import { ColourChoiceSchema, type ColourChoice } from "../display/colour.js";
import { isDirectory } from "../settings/isDirectory.js";

/**
 * What every command needs to know about where it runs: its caller's context (the note about the dialect chosen is
 * said at once) and `--color`. `envWarnings`: `run` and `record` say them with their configuration's; other commands
 * have said them already.
 */
export interface CliContext extends Omit<CallerContext, "note" | "configWarning"> {
  /** `--color`: whether tables and listings on a terminal show decisions and failures in colour. */
  readonly colour: ColourChoice;
}

/**
 * The context of a command. `detectDialect`: a command a person types reads the one host whose settings exist when no
 * dialect is named; one a host calls (`run`, `record`) passes false and keeps the default. `holdEnvWarnings`: the
 * command says `envWarnings` itself (`run`, whose stderr may be a block's reason, and which logs them).
 */
export function cliContext(
  command: Command,
  { detectDialect = true, holdEnvWarnings = false }: { readonly detectDialect?: boolean; readonly holdEnvWarnings?: boolean } = {},
): CliContext {
  const globals = command.optsWithGlobals<CallerGlobals & { color?: string }>();
  const homeDir = homedir();
  // qhooks' own folder: an old ~/.qoder-cn/qhooks moves to ~/.qhooks before anything reads the log or trust.
  const dataDirWarning = settleDataDirOnce(homeDir);
  if (dataDirWarning !== null) err(`qhooks: warning: ${dataDirWarning}`);
  const caller = callerContext(globals, { env: process.env, cwd: process.cwd(), homeDir, detectDialect });
  if (!holdEnvWarnings) for (const w of caller.envWarnings) err(`qhooks: warning: ${w}`);
  if (caller.configWarning !== null) err(`qhooks: warning: ${caller.configWarning}`);
  if (caller.note !== null) err(`qhooks: note: ${caller.note}`);
  // Commander checked the choice; auto when the flag is absent.
  const colour = ColourChoiceSchema.catch("auto").parse(globals.color);
  const { dialect, dialectNamed, dialectSource, projectDir, dbPath, env, envWarnings } = caller;
  return { dialect, dialectNamed, dialectSource, projectDir, homeDir, dbPath, env, colour, envWarnings };
}

/** Hooks run in the project directory: a missing one is the user's mistake, said before anything runs. */
export function requireProjectDir(context: CliContext): string {
  if (!isDirectory(context.projectDir)) {
    throw new QhooksError(
      "usage",
      `project directory ${context.projectDir} does not exist (${["--project-dir", ...hostDialect(context.dialect).projectDirVariables.map((name) => `$${name}`)].join(", ")} or the working directory)`,
    );
  }
  return context.projectDir;
}

/**
 * `--settings` files replace the settings levels: a mistyped or broken one would judge with no hooks at all, so each
 * must exist and be a JSON settings object (bad entries inside it are warned about and skipped, like any settings file).
 */
export function requireSettingsFiles(files: readonly string[]): void {
  for (const f of files) {
    const problem = settingsFileProblem(resolve(f));
    if (problem !== null) throw new QhooksError("usage", `--settings ${oneLineText(f)}: ${oneLineText(problem)}`);
  }
}
