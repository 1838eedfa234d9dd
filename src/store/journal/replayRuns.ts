import type { ReplayRun, ReplayRunSchema } from "../../schema/replay.js";

/**
 * Every replay run of the log, newest first, from its replay_run records in log order: a run is appended when it
 * starts and again when it ends, the later record saying more. A record that does not parse is passed over.
 */
export function latestRuns(records: Iterable<{ readonly run_id: string; readonly body: string }>, schema: typeof ReplayRunSchema): ReplayRun[] {
  const runs = new Map<string, ReplayRun>();
  for (const row of records) {
    const run = schema.safeParse(JSON.parse(row.body));
    if (run.success) runs.set(row.run_id, run.data);
  }
  return [...runs.values()].reverse();
}
