import { DEFAULT_DIALECT } from "../hosts/hostDialect.js";
import { parseStoredJson } from "../json/storedJson.js";
import type { Dialect } from "../schema/dialect.js";
import type { LogRecord } from "../schema/logRecord.js";
import type { AuditLog } from "../store/eventLog.js";

/** What a hook test is made from: one logged event, live or of a replay run. */
export type LoggedEvent = Pick<LogRecord, "seq" | "ts" | "event" | "source" | "matchValue" | "payload" | "decision" | "replay"> & {
  /** The host it was judged for, when the log holds its configuration snapshot (which names a host but qoder). */
  readonly dialect?: Dialect | undefined;
};

/**
 * The event with this seq, or null when no event has it (another kind of record, or none), with its payload as
 * JSON (its text when it is not, as the audit listing gives it), and the host it was judged for when the log knows.
 */
export async function readLoggedEvent(log: AuditLog, seq: number): Promise<LoggedEvent | null> {
  const detail = await log.event(seq);
  if (detail === null) return null;
  const { ts, event, source, matchValue, payload, decision, replay, snapshot } = detail;
  const dialect = snapshot === null ? undefined : (snapshot.dialect ?? DEFAULT_DIALECT);
  return { seq, ts, event, source, matchValue, payload: parseStoredJson(payload), decision, replay, dialect };
}
