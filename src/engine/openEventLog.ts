import { resolve } from "node:path";
import { defaultLogPath } from "../store/logPath.js";

export { defaultLogPath };
import { nullEventLog, type EventLog } from "../store/eventLog.js";
import { logDirectoryWarnings } from "../store/sqlite/logFile.js";
import { isPostgresUrl, openStore } from "../store/openStore.js";

export interface OpenEventLogOptions {
  /** A path or a PostgreSQL URL; `false` for no log; undefined for $QHOOKS_DB, else <homeDir>/.qoder-cn/qhooks/events.db. */
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
  if (isPostgresUrl(path)) return { log: openStore(path, { writer: options.env.QHOOKS_WRITER || undefined }), warnings: [] };
  const log = openStore(path);
  return { log, warnings: logDirectoryWarnings(path) };
}
