import type { Database } from "better-sqlite3";
import type { ReplayRun, ReplayRunSchema } from "../../schema/replay.js";
import { latestRuns } from "../journal/replayRuns.js";

/** Every replay run of the log, newest first (journal/replayRuns.ts). */
export function replayRuns(db: Database, schema: typeof ReplayRunSchema): ReplayRun[] {
  const records = db.prepare("SELECT run_id, body FROM journal WHERE kind = 'replay_run' ORDER BY seq").iterate() as IterableIterator<{
    run_id: string;
    body: string;
  }>;
  return latestRuns(records, schema);
}
