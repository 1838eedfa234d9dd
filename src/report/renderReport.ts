import { prettyStoredJson } from "../json/storedJson.js";
import type { LogDecision, LogRecord } from "../schema/logRecord.js";
import type { HookOutcomeKind, HookResult } from "../schema/outcome.js";
import { durationText } from "../display/detailText.js";
import { originColumns } from "../display/originColumns.js";
import { sessionShortener } from "../display/sessionPrefix.js";
import { showTime } from "../display/times.js";
import { capped, html, Html, visible, visibleLines } from "./html.js";
import { contentSecurityPolicy, PAGE_SCRIPT, PAGE_STYLE } from "./pageAssets.js";
import { percentile, timeBuckets, type ReportData, type SessionTally } from "./reportData.js";
import { budgetRows } from "./reportBudget.js";
import type { HookBudgetUsage } from "../schema/usage.js";

/** What the page says about how it was made, besides the data. */
export interface ReportPage {
  readonly data: ReportData;
  /** Matching events in the log (more than `data.read` when `--limit` cut the reading). */
  readonly total: number;
  /** The selection in words (`session 3f2a9b1c, since 2026-01-13 09:00`), empty for every event. */
  readonly selection: string;
  readonly generatedAt: Date;
  readonly utc: boolean;
  readonly logPath: string;
  /** `qhooks serve`'s live page: its script (a constant of qhooks, never data), run after the page's own. */
  readonly liveScript?: string;
}

/** Longest hook output, payload or reason shown in the page; the rest is in `qhooks show`. */
const MAX_TEXT = 4000;

const DECISIONS: readonly LogDecision[] = ["deny", "block", "ask", "allow", "none", "recorded", "rejected", "unfinished"];
const OUTCOMES: readonly HookOutcomeKind[] = ["success", "block", "error", "invalid-output", "timeout"];

const count = (n: number) => n.toLocaleString("en-US");
const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? "" : "s"}`;

/**
 * The report as one HTML document: styles and script inside it, nothing fetched (its Content-Security-Policy
 * forbids it), every string from the log escaped.
 */
export function renderReport(page: ReportPage): string {
  const { data } = page;
  const when = (ts: string) => showTime(ts, page.utc);
  const generated = showTime(page.generatedAt.toISOString(), page.utc);
  const title = `qhooks report${page.selection ? `: ${page.selection}` : ""}`;
  const events = [...new Set(data.drawn.map((r) => r.event ?? "(unknown)"))].sort();
  const hookNames = [...new Set(data.drawn.flatMap((r) => r.hooks.map((h) => h.name)))].sort();
  const doc = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(PAGE_SCRIPT, page.liveScript)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="qhooks">
<title>${visible(title)}</title>
<style>${rawCss()}</style>
</head>
<body>
<header>
<h1>${visible(title)}</h1>
<div class="muted">Made ${generated.text} ${generated.zone} from ${visible(page.logPath)}. Times are ${page.utc ? "in UTC" : `local (${generated.zone})`}.</div>
<div class="totals" id="totals">
<div><b>${count(page.total)}</b>matching events</div>
<div><b>${count(data.blockedCount)}</b>blocked${data.read < page.total ? " (of those read)" : ""}</div>
<div><b>${count(data.sessions.size)}</b>sessions</div>
<div><b>${count([...data.hooks.values()].reduce((n, h) => n + h.runs, 0))}</b>hook runs</div>
</div>
${hostTotals(data)}
${notes(page)}
</header>
<main>
${data.read === 0 ? html`<p id="empty">No events match.</p>` : body(page, events, hookNames, when)}
</main>
<script>${rawScript()}</script>${page.liveScript === undefined ? "" : html`<script>${new Html(page.liveScript)}</script>`}
</body>
</html>
`;
  return doc.text;
}

// The page's own style and script: constants of qhooks, never data.
const rawCss = () => new Html(PAGE_STYLE);
const rawScript = () => new Html(PAGE_SCRIPT);

function notes(page: ReportPage): Html {
  const { data } = page;
  const lines: Html[] = [];
  if (data.read < page.total) {
    lines.push(
      html`<p class="note" id="note-read">The log has ${count(page.total)} matching events; this report reads the newest ${count(data.read)} (<code>--limit all</code> for every one, or narrow the selection with <code>--session</code> or <code>--since</code>).</p>`,
    );
  }
  if (data.read > data.drawn.length) {
    lines.push(
      html`<p class="note" id="note-drawn">The timeline draws the newest ${count(data.drawn.length)} events one by one; the activity chart, the statistics and the sessions count all ${count(data.read)} read.</p>`,
    );
  }
  if (data.blockedCount > data.blocked.length) {
    lines.push(html`<p class="note">The newest ${count(data.blocked.length)} of ${count(data.blockedCount)} blocked events are listed.</p>`);
  }
  return html`${lines}`;
}

function body(page: ReportPage, events: readonly string[], hookNames: readonly string[], when: (ts: string) => ReturnType<typeof showTime>): Html {
  const { data } = page;
  const short = sessionShortener([...data.sessions.values()].map((s) => s.sessionId));
  const drawnSeqs = new Set(data.drawn.map((r) => r.seq));
  return html`
<div class="filters" id="filters">
<label>Event <select id="f-event"><option value="">all</option>${events.map((e) => html`<option value="${e}">${visible(e)}</option>`)}</select></label>
<label>Hook <select id="f-hook"><option value="">all</option>${hookNames.map((h) => html`<option value="${visible(h)}">${visible(h)}</option>`)}</select></label>
<label><input type="checkbox" id="f-blocked"> blocked only</label>
<span class="muted" id="f-count"></span>
</div>
<h2>Activity</h2>
${activity(data, when)}
<h2 id="timeline-title">Timeline</h2>
<div class="legend">${DECISIONS.map((d) => html`<span><i class="d-${d}"></i>${d}</span>`)}<span>· hooks as bars by duration:</span>${OUTCOMES.map((o) => html`<span><i class="o-${o}"></i>${o}</span>`)}</div>
<div id="timeline">${timeline(data.drawn, short, when)}</div>
<h2 id="blocked-title">Blocked (${count(data.blockedCount)})</h2>
${blockedList(data.blocked, drawnSeqs, short, when)}
<h2>Hooks</h2>
${hookStats(data)}
<h2>Budget per hook</h2>
${budgetTable(budgetRows(data.budget))}
<h2>Events by decision</h2>
${eventStats(data)}
<h2>Sessions</h2>
${sessionTable([...data.sessions.values()], when)}
`;
}

/** Events per slice of time over everything read, blocked ones in red: the part of a long history not drawn. */
function activity(data: ReportData, when: (ts: string) => ReturnType<typeof showTime>): Html {
  const buckets = timeBuckets(data);
  const most = Math.max(1, ...buckets.map((b) => b.events));
  const at = (t: number) => when(new Date(t).toISOString()).text;
  return html`<div class="chart" id="activity">${buckets.map((b) => {
    const label = `${at(b.from)} – ${at(b.to)}: ${plural(b.events, "event")}, ${count(b.blocked)} blocked`;
    return html`<div class="col" title="${label}"><span class="c-ev" style="height:${pct(b.events - b.blocked, most)}"></span><span class="c-bl" style="height:${pct(b.blocked, most)}"></span></div>`;
  })}</div>
<div class="axis"><span>${buckets.length ? at(buckets[0]!.from) : ""}</span><span>${buckets.length ? at(buckets[buckets.length - 1]!.to) : ""}</span></div>`;
}

const pct = (part: number, whole: number) => `${whole <= 0 ? 0 : Math.round((part / whole) * 1000) / 10}%`;

/** The drawn events, oldest first, under a heading per session. */
function timeline(drawn: readonly LogRecord[], short: (id: string | null) => string, when: (ts: string) => ReturnType<typeof showTime>): Html {
  const inOrder = [...drawn].reverse();
  const groups = new Map<string, LogRecord[]>();
  for (const r of inOrder) {
    const key = r.sessionId ?? "";
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  const longest = Math.max(1, ...drawn.flatMap((r) => r.hooks.map((h) => h.durationMs)));
  // Each session's origin in its heading, when the sessions drawn differ in it (a central log's).
  const origin = originColumns([...groups.values()], (rows) => rows[0]!.origin);
  return html`${[...groups.values()].map((rows) => {
    const first = rows[0]!;
    const from = origin.map((c) => `${c.header.toLowerCase()} ${c.cell(rows)}`).join(", ");
    const firstTime = when(first.ts);
    const lastTime = when(rows[rows.length - 1]!.ts);
    const blocked = rows.filter((r) => r.blocked).length;
    return html`<section class="session">
<h3>Session <span class="mono" title="${visible(first.sessionId ?? "")}">${first.sessionId === null ? "(none)" : visible(short(first.sessionId))}</span> <span class="muted">${from ? html`· <span class="origin">${visible(from)}</span> ` : ""}· ${visible(first.projectDir)} · ${firstTime.text} – ${lastTime.text} ${firstTime.zone} · ${plural(rows.length, "event")}, ${count(blocked)} blocked</span></h3>
<div class="events">${rows.map((r) => eventRow(r, longest, when))}</div>
</section>`;
  })}`;
}

function eventRow(r: LogRecord, longest: number, when: (ts: string) => ReturnType<typeof showTime>): Html {
  const t = when(r.ts);
  const decision = r.blocked ? r.decision.toUpperCase() : r.decision;
  const hooks = r.hooks.map((h) => visible(h.name));
  return html`<details class="ev" id="e${r.seq}" data-event="${r.event ?? "(unknown)"}" data-hooks="${JSON.stringify(hooks)}" data-blocked="${r.blocked ? "1" : "0"}">
<summary><span class="mono" title="${t.iso}">${t.text.slice(11)}</span><span class="mono">#${r.seq}</span><span class="cut">${r.event ?? "(unknown)"}</span><span class="cut mono" title="${visible(matchAndTried(r))}">${visible(r.matchValue ?? "")}${r.tried === null ? "" : html` <span class="muted tried">${visible(r.tried)}</span>`}</span><span><span class="dec d-${r.decision}" title="${visible(r.reason ?? r.decision)}">${decision}</span></span><span class="lane">${r.hooks.length === 0 ? html`<span class="hn">no hook ran</span>` : r.hooks.map((h) => hookBar(h, longest))}</span><span class="cut reason-line" title="${visible(r.reason ?? "")}">${visible(r.reason ?? "")}</span></summary>
<div class="body">${eventBody(r)}</div>
</details>`;
}

/** The match value and what was tried (`Bash: rm -rf build`), for the cell's tooltip: the cell itself is cut. */
const matchAndTried = (r: LogRecord): string => [r.matchValue, r.tried].filter((p) => p !== null).join(": ");

function hookBar(h: HookResult, longest: number): Html {
  const tip = `${h.name}: ${h.outcome}, ${durationText(h.durationMs)}${h.reason ? ` — ${h.reason}` : h.error ? ` — ${h.error}` : ""}`;
  return html`<span class="hb" title="${visible(tip)}"><span class="bar o-${h.outcome}" style="width:${Math.max(3, Math.round((h.durationMs / longest) * 160))}px"></span><span class="hn">${visible(h.name)} · ${durationText(h.durationMs)}</span></span>`;
}

function eventBody(r: LogRecord): Html {
  const rest = `qhooks show ${r.seq}`;
  const payload = typeof r.payload === "string" ? r.payload : JSON.stringify(r.payload, null, 2);
  return html`${r.tried === null ? "" : html`<div>Tried: <code class="tried">${visible(r.tried)}</code></div>`}
${r.reason ? html`<div>Reason: <span class="reason">${visible(capped(r.reason, MAX_TEXT, rest))}</span></div>` : ""}
${r.hooks.map((h) => hookDetail(h, rest))}
${r.skipped.length ? html`<h4>Not run</h4>${r.skipped.map((s) => html`<div>${visible(s.name)}: ${s.reason} — ${visible(s.message)}</div>`)}` : ""}
${r.systemMessages.length ? html`<h4>Messages</h4>${r.systemMessages.map((m) => html`<pre>${visibleLines(capped(m, MAX_TEXT, rest))}</pre>`)}` : ""}
${r.additionalContext.length ? html`<h4>Context for the model</h4>${r.additionalContext.map((c) => html`<pre>${visibleLines(capped(c, MAX_TEXT, rest))}</pre>`)}` : ""}
${r.warnings.length ? html`<h4>Warnings</h4>${r.warnings.map((w) => html`<div>${visible(w)}</div>`)}` : ""}
<h4>Payload</h4><pre class="payload">${visibleLines(capped(typeof r.payload === "string" ? prettyStoredJson(payload) : payload, MAX_TEXT, rest))}</pre>
<div class="muted">Everything about this event: <code>${rest}</code></div>`;
}

function hookDetail(h: HookResult, rest: string): Html {
  const ended = [
    h.exitCode === null ? null : `exit ${h.exitCode}`,
    h.signal === null ? null : `signal ${h.signal}`,
    h.timedOut ? "timed out" : null,
    durationText(h.durationMs),
  ]
    .filter((p) => p !== null)
    .join(", ");
  const output = (label: string, text: string) =>
    text === "" ? "" : html`<div class="muted">${label}</div><pre>${visibleLines(capped(text, MAX_TEXT, rest))}</pre>`;
  return html`<div class="hook"><div><b>${visible(h.name)}</b>: <span class="dec d-${h.outcome === "block" ? "deny" : "none"} o-${h.outcome}">${h.outcome}</span> (${ended})</div>
<div class="kv"><span>command</span><code>${h.command === null ? "(in-process handler)" : visible(h.command)}</code><span>from</span><span>${visible(h.level)}${h.matcher ? html`, matcher <code>${visible(h.matcher)}</code>` : ""}</span>${
    h.decision !== "none" || h.reason
      ? html`<span>decision</span><span>${h.decision}${h.reason ? html`: <span class="reason">${visible(capped(h.reason, MAX_TEXT, rest))}</span>` : ""}</span>`
      : ""
  }${h.error ? html`<span>error</span><span>${visible(h.error)}</span>` : ""}</div>
${output("stdout", h.stdout)}${output("stderr", h.stderr)}${h.truncated ? html`<div class="muted">(output cut: the hook wrote more than qhooks keeps)</div>` : ""}</div>`;
}

function blockedList(
  blocked: readonly LogRecord[],
  drawn: ReadonlySet<number>,
  short: (id: string | null) => string,
  when: (ts: string) => ReturnType<typeof showTime>,
): Html {
  if (blocked.length === 0) return html`<p class="muted" id="blocked">Nothing was blocked.</p>`;
  const zone = when(blocked[0]!.ts).zone;
  return html`<table id="blocked"><thead><tr><th>TIME (${zone})</th><th class="n">SEQ</th><th>SESSION</th><th>EVENT</th><th>MATCH</th><th>BLOCKED BY</th><th>REASON</th></tr></thead><tbody>
${blocked.map((r) => {
  const by = r.hooks.filter((h) => h.outcome === "block" || h.decision === "deny" || h.decision === "block").map((h) => h.name);
  return html`<tr data-event="${r.event ?? "(unknown)"}" data-hooks="${JSON.stringify(r.hooks.map((h) => visible(h.name)))}" data-blocked="1"><td class="mono">${when(r.ts).text}</td><td class="n mono">${drawn.has(r.seq) ? html`<a href="#e${r.seq}">#${r.seq}</a>` : `#${r.seq}`}</td><td class="mono">${visible(short(r.sessionId))}</td><td>${r.event ?? "(unknown)"}</td><td class="mono">${visible(r.matchValue ?? "")}</td><td>${visible(by.join(", ") || "-")}</td><td class="reason">${visible(capped(r.reason ?? "", MAX_TEXT, `qhooks show ${r.seq}`))}</td></tr>`;
})}
</tbody></table>`;
}

function hookStats(data: ReportData): Html {
  const hooks = [...data.hooks.values()].sort((a, b) => b.runs - a.runs || a.name.localeCompare(b.name));
  if (hooks.length === 0) return html`<p class="muted">No hook ran.</p>`;
  const rows = hooks.map((h) => {
    const sorted = [...h.durations].sort((a, b) => a - b);
    return { h, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? null };
  });
  const mostRuns = Math.max(1, ...hooks.map((h) => h.runs));
  const slowest = Math.max(1, ...rows.map((r) => r.p95 ?? 0));
  return html`<div class="legend">${OUTCOMES.map((o) => html`<span><i class="o-${o}"></i>${o}</span>`)}</div>
<table id="hook-stats"><thead><tr><th>HOOK</th><th>RUNS BY OUTCOME</th><th class="n">RUNS</th><th class="n">BLOCKS</th><th class="n">ERRORS</th><th class="n">TIMEOUTS</th><th>P95 TIME</th><th class="n">P50 MS</th><th class="n">P95 MS</th><th class="n">MAX MS</th></tr></thead><tbody>
${rows.map(({ h, p50, p95, max }) => html`<tr data-hook-row="${visible(h.name)}"><td class="mono">${visible(h.name)}</td><td><div class="track"><div class="stack" style="width:${pct(h.runs, mostRuns)}" title="${OUTCOMES.map((o) => `${o} ${h.outcomes[o]}`).join(", ")}">${OUTCOMES.map((o) => (h.outcomes[o] ? html`<span class="o-${o}" style="width:${pct(h.outcomes[o], h.runs)}"></span>` : ""))}</div></div></td><td class="n">${count(h.runs)}</td><td class="n">${count(h.outcomes.block)}</td><td class="n">${count(h.outcomes.error + h.outcomes["invalid-output"])}</td><td class="n">${count(h.outcomes.timeout)}</td><td><div class="track"><div class="stack" title="p95 ${ms(p95)} ms"><span class="o-success" style="width:${pct(p95 ?? 0, slowest)}"></span></div></div></td><td class="n">${ms(p50)}</td><td class="n">${ms(p95)}</td><td class="n">${ms(max)}</td></tr>`)}
</tbody></table>`;
}

const ms = (v: number | null) => (v === null ? "" : String(Math.round(v * 10) / 10));

/**
 * What each hook cost a turn, as `qhooks hooks --usage` counts it (a hook is its level and name): the time it added
 * (mean and largest turn, the largest as a bar) and the context it injected, the costliest first.
 */
function budgetTable(rows: readonly HookBudgetUsage[]): Html {
  if (rows.length === 0) return html`<p class="muted" id="hook-budget">No hook ran in a session.</p>`;
  const sorted = [...rows].sort((a, b) => b.msPerTurn.max - a.msPerTurn.max || a.name.localeCompare(b.name) || a.level.localeCompare(b.level));
  const longest = Math.max(1, ...rows.map((r) => r.msPerTurn.max));
  return html`<table id="hook-budget"><thead><tr><th>HOOK</th><th>LEVEL</th><th class="n">TURNS</th><th>MOST TIME IN A TURN</th><th class="n">MS/TURN MEAN</th><th class="n">MS/TURN MAX</th><th class="n">CONTEXT CHARS</th><th class="n">CTX/TURN MAX</th></tr></thead><tbody>
${sorted.map(
  (r) =>
    html`<tr data-budget-row="${visible(r.name)}" data-level="${visible(r.level)}"><td class="mono">${visible(r.name)}</td><td class="mono">${visible(r.level)}</td><td class="n">${count(r.turns)}</td><td><div class="track"><div class="stack" title="${ms(r.msPerTurn.max)} ms"><span class="o-success" style="width:${pct(r.msPerTurn.max, longest)}"></span></div></div></td><td class="n">${ms(r.msPerTurn.mean)}</td><td class="n">${ms(r.msPerTurn.max)}</td><td class="n">${count(r.contextChars.total)}</td><td class="n">${count(r.contextChars.maxPerTurn)}</td></tr>`,
)}
</tbody></table>
<div class="muted">A turn runs from one prompt to the next; context is the text a hook put before the model. <code>qhooks hooks --usage</code> gives the same for any window.</div>`;
}

/** The summary's line of events by agent host (blocked ones in brackets), most first; none for one host only. */
function hostTotals(data: ReportData): Html | string {
  if (data.byHost.size < 2) return "";
  const hosts = [...data.byHost].sort((a, b) => b[1].events - a[1].events || a[0].localeCompare(b[0]));
  return html`<div class="muted" id="host-totals">By host: ${hosts.map(
    ([host, t], i) =>
      html`${i > 0 ? ", " : ""}<span data-host="${visible(host)}">${host === "" ? "no host" : visible(host)} ${count(t.events)}${t.blocked ? ` (${count(t.blocked)} blocked)` : ""}</span>`,
  )}</div>`;
}

function eventStats(data: ReportData): Html {
  const rows = [...data.byEvent]
    .map(([event, decisions]) => ({ event, decisions, total: [...decisions.values()].reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total || a.event.localeCompare(b.event));
  const most = Math.max(1, ...rows.map((r) => r.total));
  return html`<div class="legend">${DECISIONS.map((d) => html`<span><i class="d-${d}"></i>${d}</span>`)}</div>
<table id="event-stats"><thead><tr><th>EVENT</th><th>DECISIONS</th><th class="n">COUNT</th></tr></thead><tbody>
${rows.map(
  (r) =>
    html`<tr><td>${r.event}</td><td><div class="track"><div class="stack" style="width:${pct(r.total, most)}" title="${DECISIONS.filter((d) =>
      r.decisions.get(d),
    )
      .map((d) => `${d} ${r.decisions.get(d)}`)
      .join(
        ", ",
      )}">${DECISIONS.map((d) => (r.decisions.get(d) ? html`<span class="d-${d}" style="width:${pct(r.decisions.get(d)!, r.total)}"></span>` : ""))}</div></div></td><td class="n">${count(r.total)}</td></tr>`,
)}
</tbody></table>`;
}

function sessionTable(sessions: readonly SessionTally[], when: (ts: string) => ReturnType<typeof showTime>): Html {
  const sorted = [...sessions].sort((a, b) => (a.firstTs < b.firstTs ? -1 : a.firstTs > b.firstTs ? 1 : 0));
  // Host, machine, user and writer as `qhooks sessions` shows them: each only when the sessions differ in it.
  const origin = originColumns(sorted, (s) => s.origin);
  return html`<table id="sessions"><thead><tr><th>SESSION</th><th>FIRST</th><th>LAST</th><th class="n">EVENTS</th><th class="n">BLOCKED</th><th class="n">HOOKS LOADED</th>${origin.map((c) => html`<th>${c.header}</th>`)}<th>PROJECT</th></tr></thead><tbody>
${sorted.map((s) => html`<tr><td class="mono">${s.sessionId === null ? "(none)" : visible(s.sessionId)}</td><td class="mono">${when(s.firstTs).text}</td><td class="mono">${when(s.lastTs).text}</td><td class="n">${count(s.events)}</td><td class="n">${count(s.blocked)}</td>${loadedCell(s)}${origin.map((c) => html`<td class="mono origin">${visible(c.cell(s))}</td>`)}<td class="mono">${visible(s.projectDir)}</td></tr>`)}
</tbody></table>`;
}

/** A session's load attestation: loaded of configured, each skipped entry with why in the cell's title; `-` when unknown. */
function loadedCell(s: SessionTally): Html {
  const a = s.attestation;
  if (a === null) return html`<td class="n">-</td>`;
  const skipped = [...a.skipped.map((k) => `skipped ${k.file} ${k.path}: ${k.why}`), ...a.unreadFiles.map((f) => `not read ${f.file}: ${f.why}`)];
  const text = `${count(a.loaded)} of ${count(a.configured)}`;
  return skipped.length === 0
    ? html`<td class="n">${text}</td>`
    : html`<td class="n" title="${visibleLines(capped(skipped.join("\n"), MAX_TEXT, "qhooks explain"))}">${text} <span class="muted">(${count(a.configured - a.loaded)} skipped)</span></td>`;
}
