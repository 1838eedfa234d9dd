import { QhooksError } from "../errors.js";
import type { AuditLog, LogFilter } from "../store/eventLog.js";
import { oneLineText } from "../text/oneLine.js";

/**
 * `--session` takes a whole session id or a unique prefix of one, as tables show them (`3f2a9b1c-04e…`, the
 * ellipsis included when pasted). An id that some event has is taken as it is; otherwise the prefix must name
 * exactly one session: two or more is a usage error listing them, none leaves the id as it is (nothing matches).
 */
export async function resolveSessions(log: AuditLog, filter: LogFilter): Promise<LogFilter> {
  if (filter.sessions === undefined || filter.sessions.length === 0) return filter;
  let known: string[] | undefined;
  const sessions: string[] = [];
  for (const given of filter.sessions) {
    const id = given.replace(/(…|\.\.\.)$/, "");
    if (id !== "" && (await log.count({ sessions: [id], replayRun: filter.replayRun })) > 0) {
      sessions.push(id);
      continue;
    }
    // Only when the id is not one: listing every session reads the whole log.
    known ??= (await log.sessions({})).map((s) => s.sessionId);
    const candidates = id === "" ? [] : known.filter((s) => s.startsWith(id));
    if (candidates.length > 1) {
      const shown = candidates.slice(0, 5).map((s) => oneLineText(s, 40));
      throw new QhooksError(
        "usage",
        `--session ${oneLineText(given, 40)}: ${candidates.length} sessions start with it (${shown.join(", ")}${candidates.length > 5 ? ", ..." : ""}); give more of the id`,
      );
    }
    sessions.push(candidates[0] ?? given);
  }
  return { ...filter, sessions };
}
