import { wellFormed } from "../journal/hashFormat.js";
import type { LogFilter } from "../eventLog.js";
import { filterTerms, windowTerms, type FilterTerm, type Window } from "../journal/filterTerms.js";

/**
 * How a log filter's conditions (journal/filterTerms.ts) read in PostgreSQL: texts as bytes (SQLite's order and
 * comparison), numbered parameters.
 */

export const bytes = (text: string): Buffer => Buffer.from(wellFormed(text), "utf8");
export const textOf = (v: Buffer | string | null): string | null => (v === null ? null : Buffer.isBuffer(v) ? v.toString("utf8") : v);

export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The WHERE clause of a filter over the event rows `v`, the event's record `e` and its outcome's record `o`. */
export function eventWhere(filter: LogFilter, p: Params): string {
  return filterTerms(filter)
    .map((t) => termSql(t, p, "v.ts"))
    .join(" AND ");
}

/** A column of the event's record: `e.<column>` where the listing joins it. */
const joined = (column: string): string => `e.${column}`;

function termSql(term: FilterTerm, p: Params, ts: string, record: (column: string) => string = joined): string {
  switch (term.kind) {
    case "live":
      return "v.run_id IS NULL";
    case "run":
      return `v.run_id IS NOT NULL AND v.run_id = ${p.add(bytes(term.runId))}`;
    case "event":
      return `v.event = ${p.add(term.event)}`;
    case "sessions":
      return `v.session_id = ANY(${p.add(term.sessionIds.map(bytes))}::bytea[])`;
    case "tool":
      return `v.match_value = ${p.add(bytes(term.matchValue))}`;
    case "unfinished":
      return "v.decision IS NULL";
    case "decision":
      return `v.decision = ${p.add(term.decision)}`;
    case "blocked":
      return term.blocked ? "v.blocked = 1" : "v.blocked = 0";
    case "hook": {
      const hook = p.add(bytes(term.text));
      const named = term.names.length ? ` OR h.name = ANY(${p.add(term.names.map(bytes))}::bytea[])` : "";
      return `EXISTS (SELECT 1 FROM qhooks_hooks h WHERE h.event_gid = v.gid AND (position(${hook}::bytea in h.name) > 0 OR position(${hook}::bytea in coalesce(h.command, ''::bytea)) > 0${named}))`;
    }
    case "hookFailed":
      return `EXISTS (SELECT 1 FROM qhooks_hooks h WHERE h.event_gid = v.gid AND h.status IN ('error', 'timeout', 'invalid-output'))`;
    case "project":
      return `v.project_dir = ${p.add(bytes(term.projectDir))}`;
    case "grep": {
      const grep = p.add(bytes(term.text));
      return `(position(${grep}::bytea in e.body) > 0 OR position(${grep}::bytea in coalesce(o.reason, e.reason, ''::bytea)) > 0)`;
    }
    case "shadowChanged":
      // The outcome's JSON, as SQLite reads it.
      return `convert_from(CASE WHEN v.outcome_gid = v.gid THEN e.outcome ELSE o.body END, 'UTF8')::jsonb #>> '{shadow,changed}' = 'true'`;
    case "machine":
      return `${record("machine")} = ${p.add(bytes(term.machine))}`;
    case "user":
      return `${record("os_user")} = ${p.add(bytes(term.user))}`;
    case "writer":
      return `${record("writer_id")} = ${p.add(term.writer)}`;
    case "host":
      return `${record("judged_by")} = ${p.add(term.host)}`;
    case "since":
      return `${ts} >= ${p.add(term.ts)}`;
    case "until":
      return `${ts} < ${p.add(term.ts)}`;
  }
}

export const EVENT_JOIN =
  "qhooks_events v JOIN qhooks_journal e ON e.gid = v.gid LEFT JOIN qhooks_journal o ON o.gid = v.outcome_gid AND v.outcome_gid <> v.gid";

/** Byte order of two texts, null first: the order SQLite gives its match values. */
export const compareText = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * A window's conditions, each after an AND, for the summaries: the time on `column`, the origin read from the
 * event's record, whose gid is `row`.
 */
export function windowSql(window: Window, p: Params, column = "ts", row = "qhooks_events.gid"): string {
  return windowTerms(window)
    .map((t) => ` AND ${termSql(t, p, column, (c) => `(SELECT j.${c} FROM qhooks_journal j WHERE j.gid = ${row})`)}`)
    .join("");
}
