import { attestLoad } from "../engine/loadAttestation.js";
import type { LoadAttestation } from "../schema/doctor.js";
import type { EventDetail } from "../schema/eventDetail.js";
import { configOfSnapshot } from "./loggedConfig.js";

/**
 * The load attestation of a logged configuration: the one the log kept (it keeps one when an entry did not load),
 * else counted from the logged hooks sections (every entry loaded; or a snapshot logged before attestations were kept).
 */
export function loggedAttestation(snapshot: NonNullable<EventDetail["snapshot"]>): LoadAttestation {
  return snapshot.attestation ?? attestLoad(configOfSnapshot(snapshot).snapshot, null);
}
