import { QhooksError } from "../../errors.js";
import type { PendingRow } from "./rows.js";

/**
 * What every backend checks and keeps as it places records, whatever its statements: which records may follow the
 * log as it is, and what a record does to the Stop-loop guard's count.
 */

/**
 * Why a record may not be placed, or null: an outcome must follow an event of the log that has none yet; an async
 * hook's result, an event of the log, judged or not (the hook may end before the outcome). `event` is the event
 * its `ref` names, as the backend found it (undefined when the log has no event of that number).
 */
export function refusal(row: Pick<PendingRow, "kind" | "ref">, event: { readonly judged: boolean } | undefined): QhooksError | null {
  if (row.kind === "hook") return event ? null : new QhooksError("log", `no event ${row.ref} in the log to attach a hook result to`);
  if (row.kind !== "outcome") return null;
  if (!event) return new QhooksError("log", `no event ${row.ref} in the log to attach an outcome to`);
  if (event.judged) return new QhooksError("log", `event ${row.ref} already has its outcome`);
  return null;
}

/**
 * The Stop-loop guard's count, kept in the same transaction as each live Stop outcome: a blocked one adds one to
 * the session's streak ("up"), any other ends it ("reset"); other records leave it alone (null). `live`: the event
 * the record judges is live history (not part of a replay run).
 */
export function stopStreakStep(row: Pick<PendingRow, "kind" | "event" | "session_id" | "outcome" | "blocked">, live: boolean): "up" | "reset" | null {
  if (row.event !== "Stop" || !live || row.session_id === null) return null;
  if (row.kind !== "outcome" && row.outcome === null) return null;
  return row.blocked === 1 ? "up" : "reset";
}

/**
 * How many snapshot hashes a log connection remembers as written (the most recently used): enough for every
 * configuration a server judges with in a day, and a bound for one that lives for weeks. A hash forgotten is looked
 * up in the log before its snapshot would be written again.
 */
export const SNAPSHOTS_KNOWN = 4096;
