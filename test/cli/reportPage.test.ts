import { expect } from "chai";
import { createHash } from "node:crypto";
import { html, Html, visible } from "../../src/report/html.js";
import { PAGE_SCRIPT } from "../../src/report/pageAssets.js";
import { emptyReport, percentile, reportStep, timeBuckets, type ReportLimits } from "../../src/report/reportData.js";
import { renderReport } from "../../src/report/renderReport.js";
import { toolInputSummary } from "../../src/core/toolInputSummary.js";
import type { LogRecord } from "../../src/schema/logRecord.js";
import { makeOutcome, type SeedEvent } from "../store/storeHelpers.js";

/** Strings that would be markup or script if a page took them as HTML. */
const HOSTILE = [
  "</script><script>window.__pwned = 1</script>",
  '"><img src=x onerror="window.__pwned = 2">',
  "'><svg onload=window.__pwned=3>",
  "<style>body{display:none}</style>",
  "<!-- <a href=javascript:alert(4)>x</a>",
  "&lt;already escaped&gt; \u202egnp.exe \u0000\u001b[31m",
];
const evil = HOSTILE.join(" | ");

let nextSeq = 1;
/** A log record as `qhooks log --json` gives it. */
function record(e: SeedEvent, payload: unknown = { session_id: e.sessionId, hook_event_name: e.event }): LogRecord {
  const seq = nextSeq++;
  return {
    // An event never judged has an outcome's fields empty.
    ...makeOutcome(["recorded", "rejected", "unfinished"].includes(e.decision) ? { ...e, decision: "none" } : e),
    seq,
    event: e.event,
    sessionId: e.sessionId,
    decision: e.decision,
    ts: e.ts.toISOString(),
    matchValue: e.matchValue ?? null,
    tried: toolInputSummary(payload),
    projectDir: "/p",
    caller: null,
    payload,
    source: "dispatch",
    replay: null,
    asyncHooks: [],
    origin: { machine: "laptop", user: "dev", writer: "log-1", seq, host: null },
  };
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 13, 1, minute));

describe("report: the page", () => {
  describe("html", () => {
    it("escapes every value; markup comes only from the template's own text and from nested html", () => {
      const out = html`<td title="${evil}">${evil}</td>${[html`<b>${"<i>"}</b>`, "<u>"]}${null}${undefined}${false}${3}`;
      expect(out).to.be.instanceOf(Html);
      expect(out.text).to.equal(
        `<td title="${evil.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")}">` +
          `${evil.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")}</td><b>&lt;i&gt;</b>&lt;u&gt;3`,
      );
    });

    it("shows controls and bidirectional overrides as escapes, as a terminal does", () => {
      expect(visible("a\u202eb\u001b[2Jc\nd")).to.equal("a\\u202eb\\u001b[2Jc\\nd");
    });
  });

  describe("the fold", () => {
    const limits: ReportLimits = { drawn: 3, blocked: 1 };
    const events = [
      record({
        ts: at(9),
        event: "Stop",
        sessionId: "s2",
        decision: "block",
        reason: "tests fail",
        hooks: [{ name: "tests", outcome: "block", decision: "block", durationMs: 30 }],
      }),
      record({
        ts: at(8),
        event: "PreToolUse",
        sessionId: "s2",
        matchValue: "Bash",
        decision: "none",
        hooks: [
          { name: "guard", durationMs: 10 },
          { name: "audit", durationMs: 1 },
        ],
      }),
      record({
        ts: at(5),
        event: "PreToolUse",
        sessionId: "s1",
        matchValue: "Bash",
        decision: "deny",
        reason: "rm -rf",
        hooks: [{ name: "guard", outcome: "block", decision: "deny", durationMs: 20 }],
      }),
      record({ ts: at(1), event: "SessionStart", sessionId: "s1", decision: "none" }),
      record({ ts: at(0), event: "Notification", sessionId: null, decision: "recorded" }),
    ];
    const data = events.reduce((d, r) => reportStep(d, r, limits), emptyReport());

    it("keeps the newest events and blocked ones up to the limits, and counts all of them", () => {
      expect(data.read).to.equal(5);
      expect(data.drawn.map((r) => r.seq)).to.deep.equal(events.slice(0, 3).map((r) => r.seq));
      expect(data.blocked.map((r) => r.seq)).to.deep.equal([events[0]!.seq]);
      expect(data.blockedCount).to.equal(2);
      expect([...data.sessions.values()].map((s) => [s.sessionId, s.events, s.blocked, s.firstTs, s.lastTs])).to.deep.equal([
        ["s2", 2, 1, at(8).toISOString(), at(9).toISOString()],
        ["s1", 2, 1, at(1).toISOString(), at(5).toISOString()],
        [null, 1, 0, at(0).toISOString(), at(0).toISOString()],
      ]);
      expect(Object.fromEntries(data.byEvent.get("PreToolUse")!)).to.deep.equal({ none: 1, deny: 1 });
      const guard = data.hooks.get("guard")!;
      expect([guard.runs, guard.outcomes.block, guard.outcomes.success, guard.durations]).to.deep.equal([2, 1, 1, [10, 20]]);
    });

    it("counts every event read in the activity chart, and percentiles are nearest-rank like qhooks stats", () => {
      const buckets = timeBuckets(data, 10);
      expect(buckets).to.have.length(10);
      expect(buckets.reduce((n, b) => n + b.events, 0)).to.equal(5);
      expect(buckets.reduce((n, b) => n + b.blocked, 0)).to.equal(2);
      expect(buckets[0]!.from).to.equal(at(0).getTime());
      expect(buckets[9]!.to).to.equal(at(9).getTime());
      expect(buckets[9]!.events).to.equal(1);
      expect(timeBuckets(emptyReport())).to.deep.equal([]);
      expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).to.equal(5);
      expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).to.equal(10);
      expect(percentile([], 50)).to.equal(null);
    });

    it("a long history draws the newest events one by one and says what the counts cover", () => {
      const page = renderReport({ data, total: 7, selection: "", generatedAt: at(10), utc: true, logPath: "/l.db" });
      expect(page.match(/<details class="ev"/g)).to.have.length(3);
      expect(page).to.include('id="note-read"').and.include("The log has 7 matching events; this report reads the newest 5");
      expect(page).to.include('id="note-drawn"').and.include("The timeline draws the newest 3 events one by one");
      expect(page).to.include("The newest 1 of 2 blocked events are listed.");
    });
  });

  describe("hostile strings from the log", () => {
    const hostile = record(
      {
        ts: at(2),
        event: "PreToolUse",
        sessionId: evil,
        matchValue: evil,
        decision: "deny",
        reason: evil,
        hooks: [{ name: evil, command: evil, outcome: "block", decision: "deny", reason: evil }],
        systemMessages: [evil],
      },
      { tool_name: "Bash", tool_input: { command: evil }, [evil]: evil },
    );
    const data = reportStep(emptyReport(), hostile);
    const page = renderReport({ data, total: 1, selection: `session ${evil}`, generatedAt: at(3), utc: false, logPath: `/tmp/${evil}.db` });

    it("never become markup: the only tags and attributes are the page's own, and one script, its own", () => {
      const tags = new Set([...page.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]!.toLowerCase()));
      const allowed = [
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "h1",
        "h2",
        "h3",
        "h4",
        "div",
        "b",
        "main",
        "label",
        "select",
        "option",
        "input",
        "span",
        "i",
        "section",
        "details",
        "summary",
        "pre",
        "code",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "a",
        "p",
        "script",
      ];
      expect([...tags].filter((t) => !allowed.includes(t))).to.deep.equal([]);
      expect(page.match(/<script/g)).to.have.length(1);
      expect(page).to.include(`<script>${PAGE_SCRIPT}</script>`);
      expect(page.match(/<style/g)).to.have.length(1);
      // Every "<" opens a well-formed tag of the page (values in double quotes, which escaped text cannot close),
      // and no attribute is an event handler.
      const opening = [...page.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z-]+(?:="[^"]*")?)*)\s*>/g)];
      const closing = page.match(/<\/[a-zA-Z][a-zA-Z0-9]*>/g) ?? [];
      expect(opening.length + closing.length + 1).to.equal(page.split("<").length - 1);
      const attributes = new Set(opening.flatMap((m) => [...m[2]!.replace(/="[^"]*"/g, "").matchAll(/\s+([a-zA-Z-]+)/g)].map((a) => a[1]!.toLowerCase())));
      expect([...attributes].filter((a) => a.startsWith("on"))).to.deep.equal([]);
      for (const [, href] of page.matchAll(/href="([^"]*)"/g)) expect(href).to.match(/^#e\d+$/);
      expect(page).not.to.include("javascript:alert(4)</a>");
      expect(page).to.include("&lt;/script&gt;&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
      // What a terminal would act on is shown as an escape here too.
      expect(page).to.include("\\u202egnp.exe \\u0000\\u001b[31m");
      expect(page).not.to.match(/[\u0000\u001b\u202e]/);
    });

    it("what was tried (a hostile command) is in the timeline's row and the event's body as escaped text", () => {
      const tried = hostile.tried!;
      expect(tried.startsWith("</script><script>window.__pwned = 1</script>")).to.equal(true);
      const shown = tried.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
      expect(page).to.include(`<span class="muted tried">${shown}</span>`);
      expect(page).to.include(`Tried: <code class="tried">${shown}</code>`);
    });

    it("the page fetches nothing and runs only its own script: its Content-Security-Policy says so", () => {
      const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1]?.replaceAll("&#39;", "'");
      const hash = createHash("sha256").update(PAGE_SCRIPT).digest("base64");
      expect(csp).to.equal(`default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${hash}'; img-src data:; base-uri 'none'; form-action 'none'`);
      expect(page).not.to.match(/\b(src|href)="(https?:)?\/\//i);
      expect(page).not.to.match(/@import|url\(/i);
    });
  });

  describe("origin", () => {
    const from = (sessionId: string, minute: number, origin: Partial<LogRecord["origin"]>) => {
      const r = record({ ts: at(minute), event: "Stop", sessionId, decision: "none" });
      return { ...r, origin: { ...r.origin, ...origin } };
    };

    it("one origin: the sessions table and the timeline have no origin in them, as before", () => {
      const data = [from("s1", 1, { host: "claude" }), from("s2", 2, { host: "claude" })].reduce((d, r) => reportStep(d, r), emptyReport());
      const page = renderReport({ data, total: 2, selection: "", generatedAt: at(3), utc: true, logPath: "/l.db" });
      expect(page).not.to.include("<th>HOST</th>");
      expect(page).not.to.include("<th>MACHINE</th>");
      expect(page).not.to.include('class="origin"');
    });

    it("sessions from two machines and hosts: a column for each in the sessions table, and in each session's heading", () => {
      const data = [from("s1", 1, { host: "claude", machine: "laptop-a" }), from("s2", 2, { host: "gemini", machine: "laptop-b" })].reduce(
        (d, r) => reportStep(d, r),
        emptyReport(),
      );
      const page = renderReport({ data, total: 2, selection: "", generatedAt: at(3), utc: true, logPath: "/l.db" });
      expect(page).to.match(/<th>HOST<\/th><th>MACHINE<\/th><th>PROJECT<\/th>/);
      expect(page).not.to.include("<th>USER</th>");
      expect(page).to.include('<td class="mono origin">laptop-b</td>');
      expect(page).to.include('<span class="origin">host claude, machine laptop-a</span>');
    });

    it("a hostile machine, user, writer or host is escaped text", () => {
      const data = [
        from("s1", 1, { host: `h${evil}`, machine: `m${evil}`, user: `u${evil}`, writer: `w${evil}` }),
        // A second log of that machine and user: the writer tells them apart.
        from("s3", 1, { host: `h${evil}`, machine: `m${evil}`, user: `u${evil}`, writer: "log-3" }),
        from("s2", 2, { host: "claude", machine: "laptop", user: "dev", writer: "log-2" }),
      ].reduce((d, r) => reportStep(d, r), emptyReport());
      const page = renderReport({ data, total: 3, selection: "", generatedAt: at(3), utc: true, logPath: "/l.db" });
      expect(page).to.match(/<th>HOST<\/th><th>MACHINE<\/th><th>USER<\/th><th>WRITER<\/th>/);
      expect(page).to.include("&lt;/script&gt;&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
      expect(page.match(/<script/g)).to.have.length(1);
      expect(page).not.to.include("<img");
      expect(page).not.to.include("<svg");
      expect(page).not.to.match(/[\u0000\u001b\u202e]/);
    });
  });

  it("an empty selection is a page that says so", () => {
    const page = renderReport({ data: emptyReport(), total: 0, selection: "session nope", generatedAt: at(3), utc: true, logPath: "/l.db" });
    expect(page).to.include('<p id="empty">No events match.</p>');
    expect(page).to.include("<title>qhooks report: session nope</title>");
  });
});
