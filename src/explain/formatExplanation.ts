import type { ExplainedHook, Explanation, HookSource, HookVerdict } from "../schema/explanation.js";
import { callerToolsText } from "../hosts/callerHost.js";
import { hostDialect } from "../hosts/hosts.js";
import { oneLineText } from "../text/oneLine.js";

export interface FormatOptions {
  /** Makes text from files, payloads and hooks safe to print (escapes control characters). */
  readonly text: (s: string) => string;
  /** How a logged time is shown. */
  readonly time: (iso: string) => string;
  /** Colour for a terminal (the CLI's colour.ts): the decision, and hooks that failed; plain text without it. */
  readonly paint?: {
    readonly decision: (word: string, decision: string, blocked: boolean) => string;
    readonly failure: (text: string) => string;
  };
}

/** Every verdict's label, padded to one width in the listing. */
const LABEL: Record<HookVerdict["kind"], string> = {
  ran: "ran",
  "would-run": "would run",
  "other-event": "other event",
  "no-match": "no match",
  invalid: "invalid",
  deduplicated: "deduplicated",
  skipped: "skipped",
  "not-run": "not run",
};
const WIDTH = Math.max(...Object.values(LABEL).map((l) => l.length)) + 2;

/** `qhooks explain` for people: the event, each hook with its verdict (two lines), then how the outcome was formed. */
export function formatExplanation(x: Explanation, o: FormatOptions): string {
  const t = (s: string, max = 200) => o.text(oneLineText(s, max));
  const lines: string[] = [];
  const head = [x.seq === null ? "unlogged" : `#${x.seq}`, x.event];
  if (x.matchValue !== null) head.push(t(x.matchValue, 80));
  if (x.ts !== null) head.push(o.time(x.ts));
  if (x.sessionId !== null) head.push(`session ${t(x.sessionId, 40)}`);
  lines.push(head.join("  "));
  if (x.decision !== null) {
    const decision = x.blocked ? x.decision.toUpperCase() : x.decision;
    const shown = o.paint ? o.paint.decision(decision, x.decision, x.blocked) : decision;
    lines.push(`decision: ${shown}${x.reason ? `  (${t(x.reason)})` : ""}`);
  }
  const config = x.configHash === null ? "unknown" : x.configHash.slice(0, 12);
  lines.push(`configuration: ${config} (${x.basis === "log" ? "the snapshot logged with the event" : "the settings files as they are now; no hook was run"})`);
  if (x.caller !== null) lines.push(callerLine(x.caller));
  if (x.matchField !== null) lines.push(`matchers are tested against ${x.matchField}: ${x.matchValue === null ? "-" : JSON.stringify(t(x.matchValue, 80))}`);
  else lines.push(`${x.event} ignores matchers: every hook of the event applies`);
  for (const u of x.unknown) lines.push(`not known: ${t(u, 400)}`);
  if (x.attestation !== null) lines.push(...attestationLines(x.attestation, t));
  if (x.sessionStart !== null) lines.push(...sessionStartLines(x.sessionStart, x.seq, t, o.time));
  else if (x.seq !== null && x.sessionId !== null) lines.push("session start: no SessionStart of this session in the log before this event");

  // The event's own hooks in full; those of other events (most of a configuration) in one closing line.
  const own = x.hooks.filter((h) => h.verdict.kind !== "other-event");
  const others = x.hooks.filter((h) => h.verdict.kind === "other-event");
  lines.push("", `hooks (${x.hooks.length}):`);
  if (x.hooks.length === 0) lines.push("  none configured");
  for (const h of own) lines.push(...hookLines(h, x, t, o.paint?.failure ?? ((s) => s)));
  if (others.length) {
    const list = others.map((h) => `${h.name === null ? "(no name)" : t(h.name, 60)} (${h.verdict.kind === "other-event" ? h.verdict.event : ""})`);
    lines.push(`  ${LABEL["other-event"].padEnd(WIDTH)}${others.length} hook${others.length === 1 ? "" : "s"} of other events: ${list.join(", ")}`);
  }

  if (x.formed) {
    lines.push("", "how the outcome was formed:");
    lines.push(`  ${t(x.formed.rule, 400)}`);
    if (x.formed.decidedBy.length) lines.push(`  decided by: ${x.formed.decidedBy.map((n) => t(n, 80)).join(", ")}`);
    for (const n of x.formed.notes) lines.push(`  note: ${t(n, 400)}`);
  } else if (x.decision === null) {
    const would = x.hooks.filter((h) => h.verdict.kind === "would-run").length;
    lines.push("", `${would} hook${would === 1 ? "" : "s"} would run; run them with qhooks run or qhooks test to see the decision`);
  }
  if (x.configWarnings.length) {
    lines.push("", "configuration warnings:");
    for (const w of x.configWarnings) lines.push(`  ${t(w, 300)}`);
  }
  return lines.join("\n");
}

function hookLines(h: ExplainedHook, x: Explanation, t: (s: string, max?: number) => string, failure: (s: string) => string): string[] {
  const v = h.verdict;
  const name = h.name === null ? "(no name)" : t(h.name, 60);
  const shadow = h.mode === "shadow" ? " [shadow]" : "";
  const first = `  ${LABEL[v.kind].padEnd(WIDTH)}${name}${shadow}  ${sourceText(h.source, t)}`;
  const detail = detailOf(h, v, x, t);
  // A run that failed (error, timeout, bad output), a hook that never loaded or was skipped: what to look at first.
  const failed = (v.kind === "ran" && v.outcome !== "success" && v.outcome !== "block") || v.kind === "invalid" || v.kind === "skipped";
  return detail === null ? [first] : [first, `  ${" ".repeat(WIDTH)}${failed ? failure(detail) : detail}`];
}

function sourceText(s: HookSource, t: (s: string, max?: number) => string): string {
  // A plugin's hooks are at the plugin level: its name says more. A --settings file's level is its own path.
  const parts = [s.plugin !== null ? `plugin ${t(s.plugin, 60)}` : s.level === s.file ? "--settings" : s.level];
  if (s.file !== null) parts.push(t(s.file, 120));
  if (s.path !== null) parts.push(t(s.path, 80));
  return `(${parts.join(" ")})`;
}

function detailOf(_h: ExplainedHook, v: HookVerdict, x: Explanation, t: (s: string, max?: number) => string): string | null {
  switch (v.kind) {
    case "ran": {
      const what = v.outcome === "success" || v.outcome === "block" ? `${v.outcome}: ${v.decision}` : v.outcome;
      const why = v.reason ?? v.error;
      const role = v.shadow ? ", shadow: did not count" : v.decided ? ", decided the outcome" : "";
      return `${what}, ${Math.round(v.durationMs)} ms${role}${why ? `: ${t(why, 200)}` : ""}`;
    }
    case "would-run":
      return v.shadow ? "matches; would run in shadow mode (not counted)" : "matches; would run";
    case "other-event":
      return `declared for ${v.event}, not ${x.event}`;
    case "no-match":
      return `matcher ${JSON.stringify(t(v.matcher, 80))} does not match ${v.field} ${v.value === null ? "(absent)" : JSON.stringify(t(v.value, 80))}`;
    case "invalid":
      return `never loaded: ${t(v.warning, 300)}`;
    case "deduplicated":
      return `same command as ${t(v.with.name, 60)} ${sourceText(v.with.source, t)}, which ran once for both`;
    case "skipped":
      return `${v.reason}: ${t(v.message, 300)}`;
    case "not-run":
      return t(v.why, 300);
  }
}

/** The load attestation: loaded of configured, then each entry that did not load, with why; `indent` before each line. */
function attestationLines(a: NonNullable<Explanation["attestation"]>, t: (s: string, max?: number) => string, indent = ""): string[] {
  const unread = a.unreadFiles.length ? `; ${a.unreadFiles.length} file(s) could not be read` : "";
  const lines = [`${indent}loaded: ${a.loaded} of ${a.configured} hook${a.configured === 1 ? "" : "s"} configured${unread}`];
  for (const s of a.skipped) lines.push(`${indent}  skipped ${t(s.file, 120)} ${t(s.path, 80)}: ${t(s.why, 300)}`);
  if (a.notListed) lines.push(`${indent}  skipped ${a.notListed.count} more, not listed`);
  for (const f of a.unreadFiles) lines.push(`${indent}  not read ${t(f.file, 120)}: ${t(f.why, 300)}`);
  return lines;
}

/** The session's start: which event, whether the configuration is still the one of this event, and what loaded then. */
function sessionStartLines(
  s: NonNullable<Explanation["sessionStart"]>,
  seq: number | null,
  t: (s: string, max?: number) => string,
  time: (iso: string) => string,
): string[] {
  const which = s.seq === seq ? "this event" : `#${s.seq} ${time(s.ts)}`;
  const how = s.source === null ? "" : ` (${t(s.source, 40)})`;
  const config =
    s.configHash === null
      ? "no configuration logged with it"
      : s.sameConfig
        ? "the same configuration as this event"
        : `configuration ${s.configHash.slice(0, 12)}, changed before this event`;
  const lines = [`session start: ${which}${how}, ${config}`];
  if (s.attestation !== null && s.seq !== seq) lines.push(...attestationLines(s.attestation, t, "  "));
  return lines;
}

/** `caller: Cursor, through the entry pinned to Claude Code (--dialect claude); ...`: who sent an event to whose entry. */
function callerLine(caller: NonNullable<Explanation["caller"]>): string {
  const entry = hostDialect(caller.entry).name;
  const tools = callerToolsText(caller.host, caller.entry);
  return `caller: ${hostDialect(caller.host).name}, through the entry pinned to ${entry} (--dialect ${caller.entry}); judged by ${entry}'s hooks${tools === "" ? "" : `, its tools matched as ${entry}'s: ${tools}`}`;
}
