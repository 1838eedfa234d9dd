import { join, resolve } from "node:path";

/** Where the log lives when no path is given: $QHOOKS_DB, else ~/.qoder-cn/qhooks/events.db (contract 5). */
export function defaultLogPath(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  return resolve(env.QHOOKS_DB || join(homeDir, ".qoder-cn", "qhooks", "events.db"));
}
