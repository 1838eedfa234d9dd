import type { Database } from "better-sqlite3";
import type { EventDetail } from "../../schema/eventDetail.js";
import { eventDetailOf } from "../journal/eventDetail.js";
import type { JournalRow } from "../journal/record.js";

/**
 * One event in full, from its records: the event's, its outcome's (in the same record when it was judged in one
 * step), and the snapshot it was judged by. The projections say where the outcome is; they must be up to date.
 */
export function readEvent(db: Database, seq: number): EventDetail | null {
  const event = db.prepare("SELECT * FROM journal WHERE seq = ? AND kind = 'event'").get(seq) as JournalRow | undefined;
  if (!event) return null;
  const place = db.prepare("SELECT outcome_seq FROM proj_events WHERE seq = ?").get(seq) as { outcome_seq: number | null } | undefined;
  const outcomeRecord =
    place?.outcome_seq != null && place.outcome_seq !== seq
      ? (db.prepare("SELECT * FROM journal WHERE seq = ?").get(place.outcome_seq) as JournalRow | undefined)
      : undefined;
  const snapshotRecord =
    event.config_hash === null
      ? undefined
      : (db.prepare("SELECT body FROM journal WHERE kind = 'snapshot' AND config_hash = ? ORDER BY seq LIMIT 1").get(event.config_hash) as
          | { body: string }
          | undefined);
  const logId = (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string } | undefined)?.value ?? null;
  return eventDetailOf({
    seq,
    event,
    outcome: outcomeRecord ? { seq: outcomeRecord.seq, row: outcomeRecord } : null,
    snapshotBody: snapshotRecord?.body ?? null,
    replayOf: event.ref,
    logId,
  });
}
