import { QhooksError } from "../errors.js";
import type { AuditLog } from "../store/eventLog.js";
import { oneLineText } from "../text/oneLine.js";

/** `4`, or `#4` as qhooks prints it: a whole number from 1. */
export function seqArgument(raw: string): number {
  const digits = raw.startsWith("#") ? raw.slice(1) : raw;
  const seq = /^\d+$/.test(digits) ? Number(digits) : NaN;
  if (!Number.isSafeInteger(seq) || seq < 1)
    throw new QhooksError("usage", `seq must be a whole number from 1 (the SEQ column of qhooks log), not "${oneLineText(raw, 40)}"`);
  return seq;
}

/**
 * Why no event has this seq: the log numbers all its records (settings, outcomes, hook runs), so a seq below the
 * newest event's may be one of those; above it, there is nothing yet.
 */
export async function notInLog(log: AuditLog, seq: number): Promise<string> {
  let newest: number | null = null;
  for await (const r of log.events({}, 1)) newest = r.seq;
  const hint = "qhooks log shows each event's SEQ";
  if (newest === null) return `no event #${seq}: the log has no events yet`;
  if (seq < newest) return `#${seq} is not an event but another record of the log (settings, an outcome, a hook's run); ${hint}`;
  return `no event #${seq}: the newest event in the log is #${newest}; ${hint}`;
}
