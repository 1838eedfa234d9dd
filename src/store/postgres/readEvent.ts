import type { EventDetail } from "../../schema/eventDetail.js";
import { eventDetailOf } from "../journal/eventDetail.js";
import { bytes } from "./filterSql.js";
import { journalRowOf } from "./placeRows.js";
import type { Query } from "./query.js";

/** One event in full: its record, its outcome's, the configuration snapshot it was judged by. */
export async function readEvent(query: Query, seq: number): Promise<EventDetail | null> {
  const [e] = await query("SELECT * FROM qhooks_journal WHERE gid = $1 AND kind = 'event'", [seq]);
  if (!e) return null;
  const event = journalRowOf(e);
  const [place] = await query<{ outcome_gid: number | null }>("SELECT outcome_gid FROM qhooks_events WHERE gid = $1", [seq]);
  const outcomeGid = place?.outcome_gid ?? null;
  const [o] = outcomeGid !== null && outcomeGid !== seq ? await query("SELECT * FROM qhooks_journal WHERE gid = $1", [outcomeGid]) : [];
  const outcomeRecord = o ? journalRowOf(o) : undefined;
  const [snap] =
    event.config_hash === null
      ? []
      : await query<{ body: Buffer }>(
          "SELECT body FROM qhooks_journal WHERE kind = 'snapshot' AND config_hash = $1 ORDER BY (writer_id = $2) DESC, gid LIMIT 1",
          [bytes(event.config_hash), e.writer_id],
        );
  return eventDetailOf({
    seq,
    event,
    outcome: outcomeRecord ? { seq: outcomeGid!, row: outcomeRecord } : null,
    snapshotBody: snap ? snap.body.toString("utf8") : null,
    replayOf: e.ref_gid === null ? null : Number(e.ref_gid),
    logId: e.writer_id as string,
  });
}
