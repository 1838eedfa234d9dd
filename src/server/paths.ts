import { join } from "node:path";
import { localDataDir } from "../core/dataDir.js";

/** The files of the one `qhooks serve` of a user: all in one folder, found from qhooks' one data folder. */
export interface ServerPaths {
  readonly dir: string;
  /** Where it listens and who it is (ServerStateSchema), written by the server itself. */
  readonly state: string;
  /** The secret every caller sends (0600). */
  readonly token: string;
  /** Held while a server checks that none runs and claims the state file. */
  readonly lock: string;
  /** Where a server started by `--ensure` writes its stderr. */
  readonly log: string;
}

/** The server's files, in `server/` of qhooks' local data folder (localDataDir: the one place that folder is named). */
export function serverPaths(homeDir: string): ServerPaths {
  const dir = join(localDataDir(homeDir), "server");
  return { dir, state: join(dir, "serve.json"), token: join(dir, "token"), lock: join(dir, "serve.lock"), log: join(dir, "serve.log") };
}
