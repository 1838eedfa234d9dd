import type { Database } from "better-sqlite3";
import type { EventDetail, SnapshotSource } from "../../schema/eventDetail.js";
import type { Outcome } from "../../schema/outcome.js";
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
    place?.outcome_seq != null && place.outcome_seq !== seq ? (db.prepare("SELECT * FROM journal WHERE seq = ?").get(place.outcome_seq) as JournalRow | undefined) : undefined;
  const outcomeJson = event.outcome ?? outcomeRecord?.body ?? null;
  const outcome = outcomeJson === null ? null : ({ ...(JSON.parse(outcomeJson) as Outcome), seq } satisfies Outcome);
  const snapshotRecord =
    event.config_hash === null ? undefined : (db.prepare("SELECT body FROM journal WHERE kind = 'snapshot' AND config_hash = ? ORDER BY seq LIMIT 1").get(event.config_hash) as { body: string } | undefined);
  const snapshot = snapshotRecord ? (JSON.parse(snapshotRecord.body) as { document: unknown; warnings: string[]; sources?: SnapshotSource[] }) : null;
  const logId = (db.prepare("SELECT value FROM log_meta WHERE key = 'log_id'").get() as { value: string } | undefined)?.value ?? null;
  const decision = outcome?.decision ?? (event.decision === "recorded" || event.decision === "rejected" ? event.decision : "unfinished");
  return {
    seq,
    ts: event.ts,
    source: event.source as EventDetail["source"],
    event: event.event as EventDetail["event"],
    sessionId: outcome?.sessionId ?? event.session_id,
    matchValue: event.match_value,
    projectDir: event.project_dir ?? "",
    payload: event.body,
    rejection: event.decision === "rejected" ? event.reason : null,
    decision,
    outcome,
    snapshot: snapshot && event.config_hash !== null ? { hash: event.config_hash, document: snapshot.document, warnings: snapshot.warnings, ...(snapshot.sources ? { sources: snapshot.sources } : {}) } : null,
    replay: event.run_id !== null && event.ref !== null ? { runId: event.run_id, of: event.ref } : null,
    chain: {
      logId,
      records: [event, ...(outcomeRecord ? [outcomeRecord] : [])].map((r) => ({ seq: r.seq, kind: r.kind, format: r.format, hash: r.hash })),
    },
  };
}
