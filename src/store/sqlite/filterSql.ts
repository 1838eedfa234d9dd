import type { LogFilter } from "../eventLog.js";
import { filterTerms, windowTerms, type FilterTerm, type Window } from "../journal/filterTerms.js";

/**
 * How a log filter's conditions (journal/filterTerms.ts) read in SQLite: over the event projection `v` joined to
 * the event's record `e` and its outcome's record `o`, with `?` parameters in the order they appear.
 */

/** The outcome JSON of an event: in its own record when judged in one step, else in its outcome record. */
export const OUTCOME_JSON = "CASE WHEN v.outcome_seq = v.seq THEN e.outcome ELSE o.body END";

export const EVENT_JOIN = "proj_events v JOIN journal e ON e.seq = v.seq LEFT JOIN journal o ON o.seq = v.outcome_seq AND v.outcome_seq <> v.seq";

/** The WHERE clause and its parameters for a filter: shared by the audit listing and replay's selection. */
export function eventWhere(filter: LogFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const where = filterTerms(filter)
    .map((t) => termSql(t, params, "v.ts"))
    .join(" AND ");
  return { where, params };
}

/**
 * A window's conditions, each after an AND, for the summaries: the time on `column`, the origin read from the
 * event's record, whose seq is `row` (the summaries read the projections, not the journal).
 */
export function windowSql(window: Window, column = "ts", row = "proj_events.seq"): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const sql = windowTerms(window)
    .map((t) => ` AND ${termSql(t, params, column, (c) => `(SELECT j.${c} FROM journal j WHERE j.seq = ${row})`)}`)
    .join("");
  return { sql, params };
}

/** A column of the event's record: `e.<column>` where the listing joins it. */
const joined = (column: string): string => `e.${column}`;

function termSql(term: FilterTerm, params: unknown[], ts: string, record: (column: string) => string = joined): string {
  const p = (value: unknown): string => {
    params.push(value);
    return "?";
  };
  // Written to match the partial indexes' own WHERE clauses (projections.ts), so that SQLite can use them.
  switch (term.kind) {
    case "live":
      return "v.run_id IS NULL";
    case "run":
      return `v.run_id IS NOT NULL AND v.run_id = ${p(term.runId)}`;
    case "event":
      return `v.event = ${p(term.event)}`;
    case "sessions":
      return `v.session_id IN (${term.sessionIds.map(p).join(", ")})`;
    case "tool":
      return `v.match_value = ${p(term.matchValue)}`;
    case "unfinished":
      return "v.decision IS NULL";
    case "decision":
      return `v.decision = ${p(term.decision)}`;
    case "blocked":
      return term.blocked ? "v.blocked = 1" : "v.blocked = 0";
    case "hook": {
      // Parameters in the order they appear.
      const text = `instr(h.name, ${p(term.text)}) > 0 OR instr(coalesce(h.command, ''), ${p(term.text)}) > 0`;
      const named = term.names.length ? ` OR h.name IN (${term.names.map(p).join(", ")})` : "";
      return `EXISTS (SELECT 1 FROM proj_hooks h WHERE h.event_seq = v.seq AND (${text}${named}))`;
    }
    case "hookFailed":
      return `EXISTS (SELECT 1 FROM proj_hooks h WHERE h.event_seq = v.seq AND h.status IN ('error', 'timeout', 'invalid-output'))`;
    case "project":
      return `e.project_dir = ${p(term.projectDir)}`;
    case "grep":
      // instr() is case-sensitive, as --grep promises (LIKE would not be).
      return `(instr(e.body, ${p(term.text)}) > 0 OR instr(coalesce(o.reason, e.reason, ''), ${p(term.text)}) > 0)`;
    case "shadowChanged":
      // Rare, and read by audits only: the outcome's own JSON says it, no projection keeps it.
      return `json_extract(${OUTCOME_JSON}, '$.shadow.changed') = 1`;
    case "machine":
      return `${record("machine")} = ${p(term.machine)}`;
    case "user":
      return `${record("os_user")} = ${p(term.user)}`;
    case "writer":
      // A file is one writer's log: its id.
      return `(SELECT value FROM log_meta WHERE key = 'log_id') = ${p(term.writer)}`;
    case "host":
      return `${record("judged_by")} = ${p(term.host)}`;
    case "since":
      return `${ts} >= ${p(term.ts)}`;
    case "until":
      return `${ts} < ${p(term.ts)}`;
  }
}
