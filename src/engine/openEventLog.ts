import { resolve } from "node:path";
import { join } from "node:path";
import { localDataDir } from "../core/dataDir.js";
import { defaultLogPath } from "../store/logPath.js";
import { withFallback } from "../store/fallbackLog.js";
import { openSqliteLog } from "../store/sqlite/sqliteEventLog.js";
import { shownUrl } from "../text/shownUrl.js";

export { defaultLogPath };
import { nullEventLog, type EventLog } from "../store/eventLog.js";
import { logDirectoryWarnings } from "../store/sqlite/logFile.js";
import { isPostgresUrl, openStore } from "../store/openStore.js";
import { checkDatabaseName } from "../store/postgres/databaseName.js";
import { QhooksError } from "../errors.js";
import { DEFAULT_SIGN_EVERY } from "../store/sqlite/periodicHeads.js";

export interface OpenEventLogOptions {
  /** A path or a PostgreSQL URL; `false` for no log; undefined for $QHOOKS_DB, else <homeDir>/.qhooks/events.db. */
  readonly db: string | false | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
}

/** The log the options ask for; throws a QhooksError("log") when the file cannot be opened or used. */
export function openEventLog(options: OpenEventLogOptions): EventLog {
  return openEventLogWithWarnings(options).log;
}

/** The same, with what is wrong with the place the log lives (a directory others can write to...), as warnings. */
export function openEventLogWithWarnings(options: OpenEventLogOptions): { log: EventLog; warnings: string[] } {
  if (options.db === false) return { log: nullEventLog, warnings: [] };
  const path = options.db === undefined ? defaultLogPath(options.env, options.homeDir) : isPostgresUrl(options.db) ? options.db : resolve(options.db);
  if (isPostgresUrl(path)) {
    const name = checkDatabaseName(path);
    if ("refused" in name) throw new QhooksError("usage", name.refused);
    return { log: centralWithFallback(path, options), warnings: name.warning === null ? [] : [name.warning] };
  }
  const log = openStore(path, { signEvery: signEveryOf(options.env) });
  return { log, warnings: logDirectoryWarnings(path) };
}

/**
 * How many records the local log's head is signed every as events are logged: $QHOOKS_SIGN_EVERY (0: never, only
 * ship and export sign), else DEFAULT_SIGN_EVERY.
 */
export function signEveryOf(env: Readonly<Record<string, string | undefined>>): number {
  const value = env.QHOOKS_SIGN_EVERY;
  if (value === undefined || value === "") return DEFAULT_SIGN_EVERY;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new QhooksError("usage", `QHOOKS_SIGN_EVERY=${value}: expected a whole number of records (0: sign only at ship and export)`);
  return n;
}

/** Where events go that the central log cannot take in time: a SQLite log in the local data folder. */
export const fallbackLogPath = (homeDir: string): string => join(localDataDir(homeDir), "fallback.db");

/**
 * A PostgreSQL log for dispatching: every call within its deadline, and what it cannot take in time kept in the
 * local fallback file rather than lost (see fallbackLog.ts). The fallback file is a local log like any other: its
 * head is signed every $QHOOKS_SIGN_EVERY records (and at its ship), so the events it holds until they are shipped
 * are held to signed heads too.
 */
function centralWithFallback(url: string, options: OpenEventLogOptions): EventLog {
  const fallbackPath = fallbackLogPath(options.homeDir);
  // Read now, not when the fallback is first needed: a bad value is refused when the log is opened, as for a local one.
  const signEvery = signEveryOf(options.env);
  return withFallback({
    central: openStore(url, { writer: options.env.QHOOKS_WRITER || undefined, deadlines: "dispatch" }),
    centralShown: shownUrl(url),
    openFallback: () => openSqliteLog(fallbackPath, { signEvery }),
    fallbackPath,
  });
}
