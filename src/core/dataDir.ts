import { join } from "node:path";

/**
 * Where qhooks keeps its own files on this machine (the default log, the trust store, markers, export cursors,
 * install records, the server's secret), whatever the host: `~/.qhooks`. The one place that folder is named
 * (docs/decisions.md says why not under a host's folder, nor $XDG_DATA_HOME).
 */
export const localDataDir = (homeDir: string): string => join(homeDir, ".qhooks");

/** Where qhooks kept those files before 0.x: `~/.qoder-cn/qhooks`; read only to move it (store/dataDirMigration.ts). */
export const legacyDataDir = (homeDir: string): string => join(homeDir, ".qoder-cn", "qhooks");
