import { dirname, join, resolve } from "node:path";
import { localDataDir } from "../core/dataDir.js";

const isUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

/** Where the log lives when no path is given: $QHOOKS_DB, else ~/.qhooks/events.db. */
export function defaultLogPath(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  const location = env.QHOOKS_DB || join(localDataDir(homeDir), "events.db");
  // A PostgreSQL URL is a location too (a team's central log); only a file path is made absolute.
  return isUrl(location) ? location : resolve(location);
}

/**
 * The folder for the files that go with a log on this machine (once-hook markers...): beside a log file; for a
 * PostgreSQL log, the local data folder (a URL is no folder, and its password must never name one).
 */
export const besideLog = (location: string, homeDir: string): string => (isUrl(location) ? localDataDir(homeDir) : dirname(location));
