// The Sessions page: every compression (time, source, format, tokens before/after, ratio, probe scores, route),
// a session's summaries rendered, and what changed between two compressions of it.
import type { App } from "../../app.js";
import { compressionHistory, summariesOfSession } from "../../session/history.js";
import { count } from "../../text/plural.js";
import { type Html, html, markdown, qs, when } from "../html.js";
import type { PageContext } from "./layout.js";

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const fmt = (v: unknown, digits = 0): string => {
  const n = num(v);
  return n === undefined ? "–" : n.toLocaleString("en-US", { maximumFractionDigits: digits });
};

/** The facts of each section as comparable strings. */
function factsOf(sections: Record<string, unknown>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [name, value] of Object.entries(sections)) {
    const items = new Set<string>();
    if (Array.isArray(value)) {
      for (const v of value) items.add(typeof v === "object" && v && "text" in v ? String(v.text) : JSON.stringify(v));
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) items.add(`${k}: ${count(Array.isArray(v) ? v.length : 1, "op")}`);
    }
    out.set(name, items);
  }
  return out;
}

function diff(a: Record<string, unknown>, b: Record<string, unknown>): Html {
  const fa = factsOf(a);
  const fb = factsOf(b);
  const names = [...new Set([...fa.keys(), ...fb.keys()])];
  const rows = names.flatMap((n) => {
    const before = fa.get(n) ?? new Set<string>();
    const after = fb.get(n) ?? new Set<string>();
    const added = [...after].filter((x) => !before.has(x));
    const removed = [...before].filter((x) => !after.has(x));
    if (!added.length && !removed.length) return [];
    return [
      html`<h4>${n}</h4>
        <ul>
          ${added.map((x) => html`<li class="added">+ ${x.slice(0, 300)}</li>`)}
          ${removed.map((x) => html`<li class="removed">− ${x.slice(0, 300)}</li>`)}
        </ul>`,
    ];
  });
  return rows.length ? html`${rows}` : html`<p class="muted">No section changed.</p>`;
}

export function sessionsPage(app: App, _ctx: PageContext, params: URLSearchParams): Html {
  const all = compressionHistory(app.scope, 500);
  const selected = params.get("session") ?? all[0]?.session_id;
  const table = html`<table>
    <caption class="small muted">
      ${count(all.length, "compression")}, newest first
    </caption>
    <thead>
      <tr>
        <th>Time</th>
        <th>Session</th>
        <th>#</th>
        <th>Source</th>
        <th>Format</th>
        <th class="num">Tokens before</th>
        <th class="num">After</th>
        <th class="num">Ratio</th>
        <th class="num">Probes before → after</th>
        <th>Route</th>
      </tr>
    </thead>
    <tbody>
      ${all.map((c) => {
        const s = c.stats;
        // Older stores (and compressions whose route was never recorded) show a dash rather than a guess.
        const route = typeof s.route === "string" ? s.route : "–";
        const source = c.transcript_path ? (c.transcript_path.split(/[\\/]/).pop() ?? "") : (c.client ?? "messages");
        return html`<tr ${c.session_id === selected ? html`aria-current="true"` : ""}>
          <td>${when(c.created_at)}</td>
          <td class="id">
            <a href="/sessions${qs({ session: c.session_id })}" title="${c.session_id}">${c.session_id.slice(0, 24)}</a>
          </td>
          <td class="num">${c.seq}</td>
          <td title="${c.transcript_path ?? ""}">${source}</td>
          <td>${c.format ?? "–"}</td>
          <td class="num">${fmt(s.tokens_before)}</td>
          <td class="num">${fmt(s.tokens_after)}</td>
          <td class="num">${fmt(s.ratio, 1)}×</td>
          <td class="num">${fmt(s.probe_score_before, 2)} → ${fmt(s.probe_score, 2)}</td>
          <td>${route}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
  if (!selected) return html`<p class="muted">No compression yet: compress_context stores one per call.</p>`;
  const summaries = summariesOfSession(app.scope, selected);
  const latest = summaries.at(-1);
  const cmp = Number.parseInt(params.get("from") ?? "", 10);
  const from = summaries.find((s) => s.seq === cmp) ?? summaries.at(-2);
  return html`${table}
  ${
    latest
      ? html`<h2>Session ${selected}: summary #${latest.seq}</h2>
          <div class="summary" aria-label="Rendered summary">${markdown(latest.markdown)}</div>
          <h2>What changed ${from ? html`from #${from.seq} to #${latest.seq}` : ""}</h2>
          ${
            from
              ? html`${
                  summaries.length > 2
                    ? html`<p class="small">
                        compare with:
                        ${summaries
                          .slice(0, -1)
                          .map(
                            (s) => html`<a href="/sessions${qs({ session: selected, from: s.seq })}">#${s.seq}</a> `,
                          )}
                      </p>`
                    : ""
                }${diff(from.sections, latest.sections)}`
              : html`<p class="muted">This session has one compression.</p>`
          }`
      : html`<p class="muted">No summary for ${selected}.</p>`
  }`;
}
