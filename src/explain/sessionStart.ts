import type { EventDetail } from "../schema/eventDetail.js";
import { SessionStartSchema, type SessionStart } from "../schema/explanation.js";
import type { LogFilter } from "../schema/logFilter.js";
import { loggedAttestation } from "./loggedAttestation.js";

/** As much of the log as finding a session's start reads. */
export interface SessionStartLog {
  events(filter: LogFilter, limit: number): AsyncIterable<{ readonly seq: number; readonly ts: string; readonly matchValue: string | null }>;
  event(seq: number): Promise<EventDetail | null>;
}

/** SessionStart events of one session looked through for the one before an event: a session restarts a few times. */
const MAX_STARTS = 1000;

/**
 * The start of the explained event's session: its newest SessionStart at or before the event (the event itself when
 * it is one), with the load attestation recorded then, and whether the event was judged by the same configuration.
 * Null for an event of no session, or when the log holds no SessionStart of it before the event.
 */
export async function sessionStartOf(
  log: SessionStartLog,
  explained: Pick<EventDetail, "seq" | "sessionId" | "snapshot" | "outcome">,
): Promise<SessionStart | null> {
  if (explained.sessionId === null) return null;
  let start: { seq: number; ts: string; matchValue: string | null } | null = null;
  for await (const r of log.events({ event: "SessionStart", sessions: [explained.sessionId] }, MAX_STARTS)) {
    if (r.seq > explained.seq) continue;
    start = r;
    break;
  }
  if (start === null) return null;
  const detail = await log.event(start.seq);
  if (detail === null) return null;
  const configHash = detail.snapshot?.hash ?? null;
  const explainedHash = explained.snapshot?.hash ?? explained.outcome?.configHash ?? null;
  return SessionStartSchema.parse({
    seq: start.seq,
    ts: start.ts,
    source: start.matchValue,
    configHash,
    sameConfig: configHash !== null && configHash === explainedHash,
    attestation: detail.snapshot ? loggedAttestation(detail.snapshot) : null,
  });
}
