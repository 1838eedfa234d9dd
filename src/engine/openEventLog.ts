import { join, resolve } from "node:path";
import { nullEventLog, type EventLog } from "../store/eventLog.js";
import { openSqliteLog } from "../store/sqlite/sqliteEventLog.js";

export interface OpenEventLogOptions {
  /** A path; `false` for no log; undefined for $QHOOKS_DB, else <homeDir>/.qoder-cn/qhooks/events.db. */
  readonly db: string | false | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
}

export function defaultLogPath(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  return resolve(env.QHOOKS_DB || join(homeDir, ".qoder-cn", "qhooks", "events.db"));
}

/** The log the options ask for; throws a QhooksError("log") when the file cannot be opened or used. */
export function openEventLog(options: OpenEventLogOptions): EventLog {
  if (options.db === false) return nullEventLog;
  return openSqliteLog(options.db === undefined ? defaultLogPath(options.env, options.homeDir) : resolve(options.db));
}
