import type { LogRecord } from "../schema/logRecord.js";
import type { AuditLog } from "../store/eventLog.js";

/** What a hook test is made from: one logged event, live or of a replay run. */
export type LoggedEvent = Pick<LogRecord, "seq" | "ts" | "event" | "source" | "matchValue" | "payload" | "decision" | "replay">;

/**
 * The event with this seq, or null when no event has it (another kind of record, or none). The port has no read of
 * one event yet: this walks the audit listing newest first down to the seq, live history first, then each replay
 * run (whose events the listing keeps apart). It is the one place to change when the port gains that read.
 */
export async function readLoggedEvent(log: AuditLog, seq: number): Promise<LoggedEvent | null> {
  const found = await findIn(log, {}, seq);
  if (found !== null) return found;
  for (const run of await log.replayRuns()) {
    const replayed = await findIn(log, { replayRun: run.runId }, seq);
    if (replayed !== null) return replayed;
  }
  return null;
}

async function findIn(log: AuditLog, filter: { replayRun?: string }, seq: number): Promise<LoggedEvent | null> {
  for await (const record of log.events(filter, Number.MAX_SAFE_INTEGER)) {
    if (record.seq === seq) return record;
    // Newest first: past it, it is not in this listing.
    if (record.seq < seq) return null;
  }
  return null;
}
