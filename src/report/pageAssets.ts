import { createHash } from "node:crypto";

/** The page's styles: decisions and hook outcomes by colour, bars drawn with plain boxes. */
export const PAGE_STYLE = `
:root{--fg:#1d2433;--muted:#5f6b7a;--line:#e3e7ee;--bg:#fff;--soft:#f5f7fa;
--allow:#2e9d57;--deny:#d33a3a;--block:#d33a3a;--ask:#d9901a;--none:#8a94a3;--recorded:#4a7ab8;--rejected:#8e44ad;--unfinished:#444;
--success:#2e9d57;--o-block:#d33a3a;--error:#e8772e;--invalid:#8e44ad;--timeout:#7a5b00}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI","Noto Sans","PingFang SC","Microsoft YaHei",sans-serif;color:var(--fg);background:var(--bg);margin:0}
header{padding:18px 24px 8px;border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:28px 0 10px}
main{padding:0 24px 40px;max-width:1400px}
.muted,.note{color:var(--muted)}
.note{margin:6px 0}
.totals{display:flex;gap:22px;flex-wrap:wrap;margin:10px 0 4px}
.totals b{font-size:18px;display:block}
.filters{position:sticky;top:0;z-index:2;background:var(--bg);padding:10px 0;border-bottom:1px solid var(--line);display:flex;gap:14px;flex-wrap:wrap;align-items:center}
select{font:inherit;padding:2px 4px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono CJK SC",monospace;font-size:12.5px}
pre{background:var(--soft);border:1px solid var(--line);padding:8px;margin:4px 0 8px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:360px;overflow:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);font-size:12.5px}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.mono{white-space:nowrap}
.session{margin:14px 0 0}
.session h3{font-size:14px;margin:0;padding:6px 8px;background:var(--soft);border:1px solid var(--line);border-bottom:0}
.events{border:1px solid var(--line)}
details.ev{border-bottom:1px solid var(--line)}
details.ev:last-child{border-bottom:0}
details.ev>summary{display:grid;grid-template-columns:70px 64px 150px 140px 92px minmax(160px,1.2fr) minmax(120px,2fr);gap:8px;align-items:center;padding:4px 8px;cursor:pointer;list-style:none}
details.ev>summary::-webkit-details-marker{display:none}
details.ev>summary:hover{background:var(--soft)}
details.ev[open]>summary{background:var(--soft)}
.cut{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.dec{display:inline-block;padding:1px 7px;border-radius:9px;color:#fff;font-size:12px;font-weight:600;text-align:center}
.d-allow{background:var(--allow)}.d-deny{background:var(--deny)}.d-block{background:var(--block)}.d-ask{background:var(--ask)}
.d-none{background:var(--none)}.d-recorded{background:var(--recorded)}.d-rejected{background:var(--rejected)}.d-unfinished{background:var(--unfinished)}
.lane{display:flex;flex-direction:column;gap:2px}
.hb{display:flex;align-items:center;gap:6px;min-width:0}
.bar{display:inline-block;height:9px;border-radius:2px;min-width:3px;flex:none}
.o-success{background:var(--success)}.o-block{background:var(--o-block)}.o-error{background:var(--error)}.o-invalid-output{background:var(--invalid)}.o-timeout{background:var(--timeout)}
.hn{font-size:12px;color:var(--muted);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.body{padding:6px 12px 12px 86px}
.body h4{margin:10px 0 4px;font-size:13px}
.reason{font-weight:600}
.hook{border-left:3px solid var(--line);padding-left:10px;margin:8px 0}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}
.kv>span:nth-child(odd){color:var(--muted)}
.chart{display:flex;align-items:flex-end;gap:1px;height:90px;border-bottom:1px solid var(--line)}
.chart .col{flex:1;display:flex;flex-direction:column-reverse;min-width:2px;height:100%}
.chart .col span{display:block;width:100%}
.c-ev{background:#9fb3cf}.c-bl{background:var(--deny)}
.axis{display:flex;justify-content:space-between;font-size:12px;color:var(--muted)}
.track{width:260px;max-width:30vw;background:var(--soft);border-radius:2px}
.stack{display:flex;height:12px;border-radius:2px;overflow:hidden}
.stack span{display:block;height:100%}
.legend{display:flex;gap:14px;flex-wrap:wrap;font-size:12px;color:var(--muted);margin:6px 0}
.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
a{color:#2b5fad}
`;

/**
 * The page's script: the filters (by event, by hook, blocked only) and opening an event when a link to it is
 * followed. It reads only the page itself (data attributes and elements) and writes only visibility and text.
 */
export const PAGE_SCRIPT = `(function () {
  "use strict";
  var byId = function (id) { return document.getElementById(id); };
  var eventSel = byId("f-event"), hookSel = byId("f-hook"), blockedBox = byId("f-blocked"), count = byId("f-count");
  var rows = Array.prototype.slice.call(document.querySelectorAll("[data-event]"));
  var hooksOf = rows.map(function (el) {
    try { return JSON.parse(el.getAttribute("data-hooks") || "[]"); } catch (e) { return []; }
  });
  function apply() {
    var ev = eventSel.value, hook = hookSel.value, blocked = blockedBox.checked, shown = 0, total = 0;
    rows.forEach(function (el, i) {
      var ok = (!ev || el.getAttribute("data-event") === ev) && (!hook || hooksOf[i].indexOf(hook) >= 0) && (!blocked || el.getAttribute("data-blocked") === "1");
      el.hidden = !ok;
      if (el.classList.contains("ev")) { total++; if (ok) shown++; }
    });
    Array.prototype.forEach.call(document.querySelectorAll("section.session"), function (s) {
      s.hidden = !s.querySelector(".ev:not([hidden])");
    });
    count.textContent = shown + " of " + total + " drawn events shown";
  }
  [eventSel, hookSel, blockedBox].forEach(function (el) { el.addEventListener("change", apply); });
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && byId(id);
    if (el && el.tagName === "DETAILS") { el.hidden = false; el.open = true; el.scrollIntoView({ block: "center" }); }
  }
  window.addEventListener("hashchange", openTarget);
  apply();
  openTarget();
})();`;

/**
 * The Content-Security-Policy of the page: nothing is fetched, and no script runs but the page's own. The server's
 * live page adds its second script of qhooks' own and the event stream from the page's origin (connect-src 'self').
 */
export function contentSecurityPolicy(script: string, liveScript?: string): string {
  const hashOf = (s: string) => `'sha256-${createHash("sha256").update(s, "utf8").digest("base64")}'`;
  const scripts = [script, ...(liveScript === undefined ? [] : [liveScript])].map(hashOf).join(" ");
  const connect = liveScript === undefined ? "" : " connect-src 'self';";
  return `default-src 'none'; style-src 'unsafe-inline'; script-src ${scripts};${connect} img-src data:; base-uri 'none'; form-action 'none'`;
}
