import { openPostgresLog } from "../../src/store/postgres/postgresEventLog.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { eventLogSuite } from "./suite/eventLogSuite.js";

// The shared suite of the store port, on PostgreSQL: each log a database of its own, dropped afterwards.
const made: TestDatabase[] = [];
eventLogSuite({
  name: "PostgreSQL",
  // Erasure and retention are SQLite's alone for now (README, Decisions).
  maintenance: false,
  fresh: async () => {
    const db = await createTestDatabase();
    made.push(db);
    return { log: openPostgresLog(db.url), again: async () => openPostgresLog(db.url, { mustExist: true }) };
  },
  cleanup: async () => {
    for (const db of made.splice(0)) await db.drop();
  },
});
