import type { LogFilter } from "../eventLog.js";
import { wellFormed } from "./hashFormat.js";

/**
 * What a log filter asks, once for every backend: the conditions an event must meet, all of them, as values. Each
 * backend renders them over its own tables (sqlite/filterSql.ts, postgres/filterSql.ts); what a flag of the
 * filter means is decided here. Texts are well formed, as the log stores them.
 */
export type FilterTerm =
  /** Live history: no replay run's events. */
  | { readonly kind: "live" }
  /** The events of one replay run instead. */
  | { readonly kind: "run"; readonly runId: string }
  | { readonly kind: "event"; readonly event: string }
  /** Of any of these sessions. */
  | { readonly kind: "sessions"; readonly sessionIds: readonly string[] }
  /** This exact match value (the tool name, for tool events). */
  | { readonly kind: "tool"; readonly matchValue: string }
  /** No outcome yet. */
  | { readonly kind: "unfinished" }
  | { readonly kind: "decision"; readonly decision: string }
  | { readonly kind: "blocked"; readonly blocked: boolean }
  /** A hook ran whose name or command contains this text, or whose name is one of `names` (the hook's other names). */
  | { readonly kind: "hook"; readonly text: string; readonly names: readonly string[] }
  /** A hook of the event failed: errored, timed out, or gave output that could not be read. */
  | { readonly kind: "hookFailed" }
  /** Of this project directory, exactly as logged. */
  | { readonly kind: "project"; readonly projectDir: string }
  /** The payload, or the reason (the outcome's, else the event's), contains this text: case-sensitive. */
  | { readonly kind: "grep"; readonly text: string }
  /** A shadow hook would have changed the outcome: the outcome's own JSON says so (`shadow.changed`). */
  | { readonly kind: "shadowChanged" }
  /** Written on this machine, by this OS user, in this writer's log (the record's origin). */
  | { readonly kind: "machine"; readonly machine: string }
  | { readonly kind: "user"; readonly user: string }
  | { readonly kind: "writer"; readonly writer: string }
  /** Judged by this host's settings (the agent whose dialect judged it). */
  | { readonly kind: "host"; readonly host: string }
  /** Arrived at or after this time (ISO text, compared as text). */
  | { readonly kind: "since"; readonly ts: string }
  /** Arrived before this time. */
  | { readonly kind: "until"; readonly ts: string };

/** What the summaries (sessions, stats) select by: a time window and the events' origin. */
export type Window = Pick<LogFilter, "since" | "until" | "machine" | "user" | "writer" | "host">;

/** The conditions of a filter, in the order the backends write them. */
export function filterTerms(filter: LogFilter): FilterTerm[] {
  const terms: FilterTerm[] = [filter.replayRun !== undefined ? { kind: "run", runId: wellFormed(filter.replayRun) } : { kind: "live" }];
  if (filter.event !== undefined) terms.push({ kind: "event", event: filter.event });
  if (filter.sessions?.length) terms.push({ kind: "sessions", sessionIds: filter.sessions.map(wellFormed) });
  if (filter.tool !== undefined) terms.push({ kind: "tool", matchValue: wellFormed(filter.tool) });
  if (filter.decision !== undefined) terms.push(filter.decision === "unfinished" ? { kind: "unfinished" } : { kind: "decision", decision: filter.decision });
  if (filter.blocked !== undefined) terms.push({ kind: "blocked", blocked: filter.blocked });
  if (filter.hook !== undefined) terms.push({ kind: "hook", text: wellFormed(filter.hook), names: (filter.hookNames ?? []).map(wellFormed) });
  if (filter.errors === true) terms.push({ kind: "hookFailed" });
  if (filter.projectDir !== undefined) terms.push({ kind: "project", projectDir: wellFormed(filter.projectDir) });
  if (filter.grep !== undefined) terms.push({ kind: "grep", text: wellFormed(filter.grep) });
  if (filter.shadow === true) terms.push({ kind: "shadowChanged" });
  return [...terms, ...windowTerms(filter)];
}

/** The conditions of a window (the summaries' filter, and the end of every filter): origin, then time. */
export function windowTerms(window: Window): FilterTerm[] {
  const terms: FilterTerm[] = [];
  if (window.machine !== undefined) terms.push({ kind: "machine", machine: wellFormed(window.machine) });
  if (window.user !== undefined) terms.push({ kind: "user", user: wellFormed(window.user) });
  if (window.writer !== undefined) terms.push({ kind: "writer", writer: wellFormed(window.writer) });
  if (window.host !== undefined) terms.push({ kind: "host", host: wellFormed(window.host) });
  if (window.since !== undefined) terms.push({ kind: "since", ts: window.since.toISOString() });
  if (window.until !== undefined) terms.push({ kind: "until", ts: window.until.toISOString() });
  return terms;
}
