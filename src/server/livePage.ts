/**
 * The live view's page and script. The page holds no data; the script adds each event from /live/events as text
 * (textContent, never HTML), so a payload, a reason or a session id written to run script shows as what it is.
 */
export const LIVE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>qhooks live</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 1rem; color: #222; }
h1 { font-size: 1.1rem; margin: 0 0 .5rem; }
#status { color: #666; margin-bottom: .5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 2px 6px; border-bottom: 1px solid #eee; vertical-align: top; }
td.tried, td.reason { font-family: ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; }
tr.blocked td.decision { color: #b00; font-weight: bold; }
tr.fresh { background: #fff8d0; }
</style>
</head>
<body>
<h1>qhooks live</h1>
<div id="status">connecting…</div>
<table>
<thead><tr><th>time</th><th>seq</th><th>session</th><th>event</th><th>match</th><th>tried</th><th>decision</th><th>hooks</th><th>reason</th></tr></thead>
<tbody id="events"></tbody>
</table>
<script src="/live/app.js"></script>
</body>
</html>
`;

export const LIVE_SCRIPT = `"use strict";
(function () {
  var body = document.getElementById("events");
  var status = document.getElementById("status");
  var seen = {};
  function cell(row, text, cls) {
    var td = document.createElement("td");
    td.textContent = text === null || text === undefined ? "" : String(text);
    if (cls) td.className = cls;
    row.appendChild(td);
  }
  function add(e) {
    var old = seen[e.seq];
    var row = document.createElement("tr");
    row.setAttribute("data-seq", String(e.seq));
    row.className = (e.blocked ? "blocked " : "") + "fresh";
    cell(row, new Date(e.ts).toLocaleTimeString());
    cell(row, e.seq);
    cell(row, e.sessionId === null ? "-" : e.sessionId, "session");
    cell(row, e.event === null ? "?" : e.event);
    cell(row, e.matchValue);
    cell(row, e.tried, "tried");
    cell(row, e.blocked ? String(e.decision).toUpperCase() : e.decision, "decision");
    cell(row, e.hooks.join(", ") || "-");
    cell(row, e.reason, "reason");
    if (old) body.replaceChild(row, old); else body.insertBefore(row, body.firstChild);
    seen[e.seq] = row;
    setTimeout(function () { row.classList.remove("fresh"); }, 3000);
  }
  var source = new EventSource("/live/events");
  source.addEventListener("record", function (m) { add(JSON.parse(m.data)); });
  source.onopen = function () { status.textContent = "live: new events appear at the top"; };
  source.onerror = function () { status.textContent = "disconnected; retrying (the server may have stopped)"; };
})();
`;
