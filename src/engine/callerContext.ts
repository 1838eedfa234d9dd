import { resolve } from "node:path";
import { QhooksError } from "../errors.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { HOSTS, hostDialect } from "../hosts/hosts.js";
import { chooseDialect, type DialectChoice } from "../settings/detectDialect.js";
import { guardEnvironment, projectEnvText } from "../settings/projectEnv.js";
import { defaultLogPath } from "../store/logPath.js";
import { isPostgresUrl } from "../store/openStore.js";

/** The global options as given on a command line (`--db`, `--project-dir`, `--dialect` or `--host`). */
export interface CallerGlobals {
  readonly db?: string | undefined;
  readonly projectDir?: string | undefined;
  readonly dialect?: string | undefined;
  readonly host?: string | undefined;
}

/** Where a command runs, as its caller's command line, environment, working directory and home decide it. */
export interface CallerContext {
  /**
   * Whose settings levels are read (`--dialect`, else $QHOOKS_DIALECT, else the remembered one, else the one host with
   * settings here, else qoder; a host's call stops after $QHOOKS_DIALECT).
   */
  readonly dialect: Dialect;
  /** How it was chosen, and what that rests on (settings/detectDialect.ts). */
  readonly dialectSource: Pick<DialectChoice, "how" | "from">;
  /** Whether the person named it (`--dialect`, $QHOOKS_DIALECT): else a logged event's own host may decide. */
  readonly dialectNamed: boolean;
  readonly projectDir: string;
  readonly homeDir: string;
  /** The log file or PostgreSQL URL: `--db`, else $QHOOKS_DB, else ~/.qhooks/events.db. */
  readonly dbPath: string;
  /** The caller's environment without the qhooks variables a project's settings set and the user's did not. */
  readonly env: NodeJS.ProcessEnv;
  /** The warnings about those variables left out. */
  readonly envWarnings: readonly string[];
  /** A line for the person about the dialect chosen (null: none). */
  readonly note: string | null;
  /** A warning about qhooks' config file, which could not be used (null: none). */
  readonly configWarning: string | null;
}

export interface CallerPlace {
  readonly env: NodeJS.ProcessEnv;
  /** The caller's working directory: relative paths and the default project are read from it. */
  readonly cwd: string;
  readonly homeDir: string;
  /** A command a person types reads the one host whose settings exist when no dialect is named; `run` does not. */
  readonly detectDialect: boolean;
}

/**
 * The context of a command from its caller's globals and place: the CLI's own (cli/globals.ts), and that of a `qhooks
 * run` forwarded to `qhooks serve`, which the server works out as the caller's process would have.
 */
export function callerContext(globals: CallerGlobals, place: CallerPlace): CallerContext {
  // `--host` is `--dialect`'s other name: the agent is the host, the shape of its files the dialect.
  if (globals.dialect !== undefined && globals.host !== undefined && globals.dialect !== globals.host)
    throw new QhooksError("usage", `--dialect ${globals.dialect} and --host ${globals.host} name two hosts; give one`);
  const asked = globals.dialect ?? globals.host;
  const { homeDir, cwd } = place;
  const anyHostsProject = Object.values(HOSTS)
    .flatMap((host) => host.projectDirVariables.map((name) => place.env[name]))
    .find((value) => value !== undefined);
  // A project's settings can put variables into the environment the host runs qhooks with: those that would weaken
  // the user's guards are left out unless the user's own settings set the same.
  const anyProjectDir = resolve(cwd, globals.projectDir ?? anyHostsProject ?? cwd);
  const guarded = guardEnvironment(place.env, homeDir, anyProjectDir);
  const env = guarded.env;
  const choice = chooseDialect(asked, env, { homeDir, projectDir: anyProjectDir, detect: place.detectDialect });
  const dialect = choice.dialect;
  // The host's hooks environment names the project (CLAUDE_PROJECT_DIR in front of Claude Code).
  const fromEnv = hostDialect(dialect)
    .projectDirVariables.map((name) => env[name])
    .find((value) => value !== undefined);
  const projectDir = resolve(cwd, globals.projectDir ?? fromEnv ?? cwd);
  const dbPath = globals.db !== undefined ? (isPostgresUrl(globals.db) ? globals.db : resolve(cwd, globals.db)) : defaultLogPath(env, homeDir);
  return {
    dialect,
    dialectNamed: choice.how === "flag" || choice.how === "environment",
    dialectSource: { how: choice.how, from: choice.from },
    projectDir,
    homeDir,
    dbPath,
    env,
    envWarnings: guarded.ignored.map(projectEnvText),
    note: choice.note,
    configWarning: choice.warning,
  };
}
