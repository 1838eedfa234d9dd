import type { ReplayRun, ReplayRunSchema } from "../../schema/replay.js";
import { latestRuns } from "../journal/replayRuns.js";
import type { Query } from "./query.js";

/** Every replay run of the log, newest first (journal/replayRuns.ts). */
export async function replayRuns(query: Query, schema: typeof ReplayRunSchema): Promise<ReplayRun[]> {
  const rows = await query<{ run_id: Buffer; body: Buffer }>("SELECT run_id, body FROM qhooks_journal WHERE kind = 'replay_run' ORDER BY gid");
  return latestRuns(
    rows.map((r) => ({ run_id: r.run_id.toString("utf8"), body: r.body.toString("utf8") })),
    schema,
  );
}
