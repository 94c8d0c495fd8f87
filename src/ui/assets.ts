// The viewer's stylesheet and client script, served from the package itself (no CDN: the page works offline).

/** Light and dark from the user's `prefers-color-scheme`; visible focus everywhere for keyboard use. */
export const CSS = `
:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1d1f21; --muted: #5c6166; --line: #d9dcdf; --card: #ffffff;
  --accent: #1f5fbf; --warn: #a15c00; --bad: #b3261e; --ok: #1e7b34; --chip: #eef1f4; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15171a; --fg: #e6e7e8; --muted: #a0a6ad; --line: #34383d; --card: #1d2024;
    --accent: #7fb0ff; --warn: #f0b35a; --bad: #ff8a80; --ok: #7ddc8f; --chip: #2a2e33; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; } .skip:focus { left: 8px; top: 8px; background: var(--card); padding: 4px 8px; }
header { display: flex; gap: 16px; align-items: center; padding: 10px 20px; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
header .brand { font-weight: 700; }
header nav a { margin-right: 12px; text-decoration: none; padding: 2px 4px; border-radius: 4px; }
header nav a[aria-current="page"] { background: var(--chip); font-weight: 600; }
header .project { color: var(--muted); margin-left: auto; }
main { padding: 16px 20px; max-width: 1200px; }
h1 { font-size: 20px; margin: 4px 0 12px; } h2 { font-size: 16px; margin: 20px 0 8px; } h3, h4, h5, h6 { font-size: 14px; margin: 12px 0 4px; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; } td:first-child { white-space: nowrap; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.unit, .panel { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin: 10px 0; }
.unit .text { white-space: pre-wrap; margin: 6px 0; }
.chip { display: inline-block; background: var(--chip); border-radius: 10px; padding: 0 8px; font-size: 12px; margin-right: 4px; }
.chip.warn { color: var(--warn); } .chip.bad { color: var(--bad); } .chip.ok { color: var(--ok); }
.muted { color: var(--muted); } .small { font-size: 12px; }
.actions { display: flex; gap: 6px; flex-wrap: wrap; align-items: flex-start; margin-top: 6px; }
.actions form { display: inline; margin: 0; }
button, input, select, textarea { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 3px 8px; }
button { cursor: pointer; } button.danger { color: var(--bad); }
textarea { width: 100%; min-height: 60px; }
form.filters { display: flex; gap: 8px; flex-wrap: wrap; align-items: end; margin-bottom: 8px; }
form.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
form.filters input[type=search] { min-width: 280px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 12px; }
.summary { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 4px 14px; }
pre { background: var(--chip); padding: 8px; overflow: auto; } code { font-family: ui-monospace, monospace; font-size: 12px; }
.added { color: var(--ok); } .removed { color: var(--bad); text-decoration: line-through; }
svg.chart { max-width: 100%; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: 6px; }
svg.chart .axis { stroke: var(--line); } svg.chart .line { fill: none; stroke: var(--accent); stroke-width: 2; }
svg.chart .bar { fill: var(--ok); } svg.chart .bar2 { fill: var(--bad); } svg.chart text { fill: var(--muted); font-size: 10px; }
.flash { padding: 8px 12px; border-radius: 6px; background: var(--chip); margin-bottom: 10px; }
.flash.error { color: var(--bad); }
td.path { white-space: normal; overflow-wrap: anywhere; } td.id { white-space: nowrap; }
tr.task th { color: var(--fg); font-weight: 600; background: var(--chip); white-space: normal; }
`;

/**
 * Keyboard shortcuts ("/" focuses search, g then m/s/i/c/r opens a page), confirmation before a deletion, and
 * the edit form toggled in place.
 */
export const JS = `
(function () {
  var pages = { m: "/memory", s: "/sessions", i: "/injections", c: "/cards", r: "/graph" };
  var pendingG = false;
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "/") {
      var q = document.querySelector("input[type=search]");
      if (q) { e.preventDefault(); q.focus(); }
      return;
    }
    if (pendingG && pages[e.key]) { location.href = pages[e.key]; }
    pendingG = e.key === "g";
  });
  document.addEventListener("submit", function (e) {
    var f = e.target;
    var msg = f.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) e.preventDefault();
  });
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-toggle]");
    if (!b) return;
    var el = document.getElementById(b.getAttribute("data-toggle"));
    if (!el) return;
    el.hidden = !el.hidden;
    b.setAttribute("aria-expanded", String(!el.hidden));
    if (!el.hidden) { var f = el.querySelector("textarea, input"); if (f) f.focus(); }
  });
})();
`;
