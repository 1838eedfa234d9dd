import { join, resolve } from "node:path";

/** Where the log lives when no path is given: $QHOOKS_DB, else ~/.qoder-cn/qhooks/events.db. */
export function defaultLogPath(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  const location = env.QHOOKS_DB || join(homeDir, ".qoder-cn", "qhooks", "events.db");
  // A PostgreSQL URL is a location too (a team's central log); only a file path is made absolute.
  return /^postgres(ql)?:\/\//i.test(location) ? location : resolve(location);
}
