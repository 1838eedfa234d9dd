import { loggedAttestation } from "../explain/loggedAttestation.js";
import type { SessionTally } from "./reportData.js";

/** Sessions whose attestation a report reads (one event each); the others show none. */
export const MAX_ATTESTED_SESSIONS = 500;

/**
 * Fills in each session's load attestation: that of the configuration its earliest event read was judged by (a
 * recorded or rejected event has none). At most `max` sessions, the newest first.
 */
export async function attestSessions(
  log: { event(seq: number): Promise<{ snapshot: Parameters<typeof loggedAttestation>[0] | null } | null> },
  sessions: Iterable<SessionTally>,
  max = MAX_ATTESTED_SESSIONS,
): Promise<void> {
  const newest = [...sessions].sort((a, b) => (a.lastTs < b.lastTs ? 1 : a.lastTs > b.lastTs ? -1 : 0)).slice(0, max);
  for (const session of newest) {
    const detail = await log.event(session.firstSeq);
    session.attestation = detail?.snapshot ? loggedAttestation(detail.snapshot) : null;
  }
}
