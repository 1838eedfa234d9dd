import { parseStoredJson } from "../json/storedJson.js";
import type { LogRecord } from "../schema/logRecord.js";
import type { AuditLog } from "../store/eventLog.js";

/** What a hook test is made from: one logged event, live or of a replay run. */
export type LoggedEvent = Pick<LogRecord, "seq" | "ts" | "event" | "source" | "matchValue" | "payload" | "decision" | "replay">;

/**
 * The event with this seq, or null when no event has it (another kind of record, or none), with its payload as
 * JSON (its text when it is not, as the audit listing gives it).
 */
export async function readLoggedEvent(log: AuditLog, seq: number): Promise<LoggedEvent | null> {
  const detail = await log.event(seq);
  if (detail === null) return null;
  const { ts, event, source, matchValue, payload, decision, replay } = detail;
  return { seq, ts, event, source, matchValue, payload: parseStoredJson(payload), decision, replay };
}
