import type { EventDetail, SnapshotSource } from "../../schema/eventDetail.js";
import type { Outcome } from "../../schema/outcome.js";
import type { JournalRow } from "./record.js";
import type { Dialect } from "../../schema/dialect.js";
import type { LoadAttestation } from "../../schema/doctor.js";

/** The records one event is read from, as a backend found them, numbered as that backend shows them. */
export interface EventRecords {
  /** The event's seq, as `qhooks log` shows it. */
  readonly seq: number;
  readonly event: JournalRow;
  /** Its outcome's record, when the outcome was recorded apart from the event. */
  readonly outcome: { readonly seq: number; readonly row: JournalRow } | null;
  /** The body of the snapshot of the configuration it was judged by, when the log holds it. */
  readonly snapshotBody: string | null;
  /** For an event of a replay run, the seq of the live event it re-judges. */
  readonly replayOf: number | null;
  /** The log (chain) that holds its records. */
  readonly logId: string | null;
}

/** One event in full, built the same way whichever backend read its records. */
export function eventDetailOf({ seq, event, outcome: apart, snapshotBody, replayOf, logId }: EventRecords): EventDetail {
  const outcomeJson = event.outcome ?? apart?.row.body ?? null;
  const outcome = outcomeJson === null ? null : ({ ...(JSON.parse(outcomeJson) as Outcome), seq } satisfies Outcome);
  const snapshot =
    snapshotBody === null
      ? null
      : (JSON.parse(snapshotBody) as { document: unknown; warnings: string[]; sources?: SnapshotSource[]; dialect?: Dialect; attestation?: LoadAttestation });
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
    snapshot:
      snapshot && event.config_hash !== null
        ? {
            hash: event.config_hash,
            document: snapshot.document,
            warnings: snapshot.warnings,
            ...(snapshot.sources ? { sources: snapshot.sources } : {}),
            ...(snapshot.dialect ? { dialect: snapshot.dialect } : {}),
            ...(snapshot.attestation ? { attestation: snapshot.attestation } : {}),
          }
        : null,
    replay: event.run_id !== null && replayOf !== null ? { runId: event.run_id, of: replayOf } : null,
    origin: { machine: event.machine, user: event.os_user, writer: logId, seq: event.seq, host: event.judged_by },
    chain: {
      logId,
      records: [{ seq, row: event }, ...(apart ? [apart] : [])].map(({ seq: at, row }) => ({ seq: at, kind: row.kind, format: row.format, hash: row.hash })),
    },
  };
}
