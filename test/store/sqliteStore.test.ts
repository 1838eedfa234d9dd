import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteLog } from "../../src/store/sqlite/sqliteEventLog.js";
import { eventLogSuite } from "./suite/eventLogSuite.js";

// The shared suite of the store port, on SQLite files.
const root = mkdtempSync(join(tmpdir(), "qhooks-store-suite-"));
let files = 0;
eventLogSuite({
  name: "SQLite",
  fresh: async () => {
    const path = join(root, `log-${++files}.db`);
    return { log: openSqliteLog(path), again: async () => openSqliteLog(path, { mustExist: true }) };
  },
  cleanup: async () => rmSync(root, { recursive: true, force: true }),
});
