import type { Database } from "better-sqlite3";
import type { ReplayRun, ReplayRunSchema } from "../../schema/replay.js";

/** Every replay run of the log, newest first: a run is appended when it starts and again when it ends, the later record saying more. */
export function latestRuns(db: Database, schema: typeof ReplayRunSchema): ReplayRun[] {
  const runs = new Map<string, ReplayRun>();
  for (const row of db.prepare("SELECT run_id, body FROM journal WHERE kind = 'replay_run' ORDER BY seq").iterate() as IterableIterator<{
    run_id: string;
    body: string;
  }>) {
    const run = schema.safeParse(JSON.parse(row.body));
    if (run.success) runs.set(row.run_id, run.data);
  }
  return [...runs.values()].reverse();
}
