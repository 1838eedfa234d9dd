import { wellFormed } from "../journal/hashFormat.js";
import type { LogFilter } from "../eventLog.js";

/** How a log filter reads in PostgreSQL: texts as bytes (SQLite's order and comparison), numbered parameters. */

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
  const terms: string[] = [];
  if (filter.replayRun !== undefined) terms.push(`v.run_id IS NOT NULL`, `v.run_id = ${p.add(bytes(filter.replayRun))}`);
  else terms.push("v.run_id IS NULL");
  if (filter.event !== undefined) terms.push(`v.event = ${p.add(filter.event)}`);
  if (filter.sessions?.length) terms.push(`v.session_id = ANY(${p.add(filter.sessions.map(bytes))}::bytea[])`);
  if (filter.tool !== undefined) terms.push(`v.match_value = ${p.add(bytes(filter.tool))}`);
  if (filter.decision !== undefined) terms.push(filter.decision === "unfinished" ? "v.decision IS NULL" : `v.decision = ${p.add(filter.decision)}`);
  // Shadow hooks that would have changed the outcome: the outcome says so itself (its JSON, as SQLite reads it).
  if (filter.shadow === true)
    terms.push(`convert_from(CASE WHEN v.outcome_gid = v.gid THEN e.outcome ELSE o.body END, 'UTF8')::jsonb #>> '{shadow,changed}' = 'true'`);
  if (filter.blocked === true) terms.push("v.blocked = 1");
  else if (filter.blocked === false) terms.push("v.blocked = 0");
  if (filter.hook !== undefined) {
    const hook = p.add(bytes(filter.hook));
    terms.push(
      `EXISTS (SELECT 1 FROM qhooks_hooks h WHERE h.event_gid = v.gid AND (position(${hook}::bytea in h.name) > 0 OR position(${hook}::bytea in coalesce(h.command, ''::bytea)) > 0))`,
    );
  }
  if (filter.grep !== undefined) {
    const grep = p.add(bytes(filter.grep));
    terms.push(`(position(${grep}::bytea in e.body) > 0 OR position(${grep}::bytea in coalesce(o.reason, e.reason, ''::bytea)) > 0)`);
  }
  if (filter.since !== undefined) terms.push(`v.ts >= ${p.add(filter.since.toISOString())}`);
  if (filter.until !== undefined) terms.push(`v.ts < ${p.add(filter.until.toISOString())}`);
  return terms.join(" AND ");
}

export const EVENT_JOIN =
  "qhooks_events v JOIN qhooks_journal e ON e.gid = v.gid LEFT JOIN qhooks_journal o ON o.gid = v.outcome_gid AND v.outcome_gid <> v.gid";

export type Window = Pick<LogFilter, "since" | "until">;

/** Byte order of two texts, null first: the order SQLite gives its match values. */
export const compareText = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : Buffer.compare(Buffer.from(a), Buffer.from(b));
export function windowTerms(filter: Window, p: Params, column = "ts"): string {
  let sql = "";
  if (filter.since) sql += ` AND ${column} >= ${p.add(filter.since.toISOString())}`;
  if (filter.until) sql += ` AND ${column} < ${p.add(filter.until.toISOString())}`;
  return sql;
}
