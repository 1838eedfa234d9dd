/**
 * The live page's own script, run inside the report page (src/report) that `qhooks serve` renders at page load.
 * It reads `/live/events` and adds each event to a "New events" list above the report, bumping the report's counts
 * of events and blocked events. Every field goes in as text (textContent, never HTML), so a payload, a reason or a
 * session id written to run script shows as what it is. Inline, its hash is in the page's Content-Security-Policy.
 */
export const LIVE_SCRIPT = `"use strict";
(function () {
  var style = document.createElement("style");
  style.textContent = "#live-events .live-ev { display: flex; gap: .6em; padding: 2px 4px; border-bottom: 1px solid #eee; font-size: 12px; }" +
    " #live-events .live-ev span { overflow-wrap: anywhere; } #live-events .live-ev .dec { align-self: flex-start; }" +
    " #live-events .fresh { background: #fff8d0; } #live-status { margin-top: .4em; }";
  document.head.appendChild(style);
  var status = document.createElement("div");
  status.id = "live-status";
  status.className = "muted";
  status.textContent = "connecting…";
  document.querySelector("header").appendChild(status);
  var main = document.querySelector("main");
  var section = document.createElement("section");
  section.id = "live";
  var heading = document.createElement("h2");
  heading.textContent = "New events (live, newest first)";
  var list = document.createElement("div");
  list.id = "live-events";
  section.appendChild(heading);
  section.appendChild(list);
  main.insertBefore(section, main.firstChild);
  var totals = document.querySelectorAll("#totals b");
  function bump(i) {
    var b = totals[i];
    if (b) b.textContent = (Number(b.textContent.replace(/,/g, "")) + 1).toLocaleString("en-US");
  }
  function span(row, text, cls) {
    var s = document.createElement("span");
    s.textContent = text === null || text === undefined ? "" : String(text);
    s.className = cls;
    row.appendChild(s);
  }
  function add(e) {
    // An event the report drew while it was unfinished comes again once settled: the report's row gives way.
    var old = document.getElementById("e" + e.seq);
    var row = document.createElement("div");
    row.id = "e" + e.seq;
    row.className = "live-ev fresh" + (e.blocked ? " blocked" : "");
    span(row, new Date(e.ts).toLocaleTimeString(), "mono time");
    span(row, "#" + e.seq, "mono seq");
    span(row, e.sessionId === null ? "-" : e.sessionId, "mono session");
    span(row, e.event === null ? "(unknown)" : e.event, "event");
    span(row, e.matchValue, "mono match");
    span(row, e.tried, "mono tried");
    // The report's colour of the decision: a class named by the log's decision, only when it is a plain word.
    span(row, e.blocked ? String(e.decision).toUpperCase() : e.decision, /^[a-z]+$/.test(e.decision) ? "dec d-" + e.decision : "dec");
    span(row, e.hooks.join(", ") || "no hook ran", "hooks");
    span(row, e.reason, "reason");
    if (old) old.parentNode.removeChild(old);
    else {
      bump(0);
      if (e.blocked) bump(1);
    }
    var empty = document.getElementById("empty");
    if (empty) empty.parentNode.removeChild(empty);
    list.insertBefore(row, list.firstChild);
    setTimeout(function () { row.classList.remove("fresh"); }, 3000);
  }
  var source = new EventSource("/live/events");
  source.addEventListener("record", function (m) { add(JSON.parse(m.data)); });
  source.onopen = function () { status.textContent = "live: new events appear under New events, without a reload"; };
  source.onerror = function () { status.textContent = "disconnected; retrying (the server may have stopped)"; };
})();
`;
