// The Graph page: index state (files, symbols, languages, last build, watcher), the largest and most-edited
// files, a file's neighbours, and small charts of compression ratios and card outcomes over time.
import type { App } from "../../app.js";
import { outcomesPerDay } from "../../cards/served.js";
import { neighborhood } from "../../graph/neighborhood.js";
import { fileFacts, graphStats } from "../../graph/stats.js";
import { compressionHistory, mostEditedInSessions } from "../../session/history.js";
import { barChart, lineChart } from "../chart.js";
import { type Html, html, qs, shortPath, when } from "../html.js";
import type { PageContext } from "./layout.js";

function neighbours(app: App, file: string): Html {
  try {
    const n = neighborhood(app.db, file, 12);
    return html`<h2>Neighbours of <code>${n.node.path ?? n.node.name ?? file}</code></h2>
      ${n.groups.length === 0 ? html`<p class="muted">No edges.</p>` : ""}
      <div class="grid">
        ${n.groups.map(
          (g) =>
            html`<section class="panel">
              <h3>${g.edgeType} (${g.direction}, ${g.total})</h3>
              <ul>
                ${g.nodes.map(
                  (x) =>
                    html`<li>
                      ${
                        x.path && x.type !== "symbol"
                          ? html`<a href="/graph${qs({ file: x.path })}">${x.path}</a>`
                          : html`${x.type} ${x.name ?? ""} <span class="muted small">${x.path ?? ""}</span>`
                      }
                    </li>`,
                )}
              </ul>
            </section>`,
        )}
      </div>`;
  } catch (err) {
    return html`<p class="flash error">${(err as Error).message}</p>`;
  }
}

export function graphPage(app: App, _ctx: PageContext, params: URLSearchParams): Html {
  const stats = graphStats(app.db, app.graph.watcher() !== undefined);
  const { languages: langs, largest } = fileFacts(app.db, 10);
  const edited = mostEditedInSessions(app.scope, 10);
  const file = (params.get("file") ?? "").slice(0, 1000);
  const ratios = compressionHistory(app.scope, 200)
    .reverse()
    .map((c) => ({ label: `${c.session_id.slice(0, 12)} #${c.seq}`, value: Number(c.stats.ratio ?? 0) }));
  const outcomes = outcomesPerDay(app.scope).map((o) => ({
    label: o.day,
    a: o.helped,
    b: o.total - o.helped,
  }));
  const last = stats.lastRun;
  const fileLink = (p: string) => {
    const { shown, full } = shortPath(p, app.location.root);
    return html`<a class="path" href="/graph${qs({ file: p })}" title="${full}">${shown}</a>`;
  };
  return html`<section class="panel" aria-label="Index state">
      <p>
        <strong>${stats.files.toLocaleString("en-US")}</strong> files ·
        <strong>${(stats.nodes.symbol ?? 0).toLocaleString("en-US")}</strong> symbols · state
        <strong>${stats.state}</strong> · last build
        ${last ? `${when(last.at)} (${last.parsed} parsed, ${last.ms} ms)` : "never"} · watcher
        ${stats.watching ? "on" : "off"}
      </p>
      <p class="small">${langs.map((l) => html`<span class="chip">${l.language} ${l.n}</span>`)}</p>
    </section>
    <div class="grid">
      <section>
        <h2>Compression ratio per compression</h2>
        ${lineChart("ratio (tokens before / after)", ratios, "×")}
      </section>
      <section>
        <h2>Card outcomes per day</h2>
        ${barChart("outcomes", outcomes)}
      </section>
    </div>
    <div class="grid">
      <section>
        <h2>Largest files</h2>
        <table>
          <tbody>
            ${largest.map(
              (f) =>
                html`<tr>
                  <td class="path">${fileLink(f.path)}</td>
                  <td class="num">${f.size.toLocaleString("en-US")} B</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>
      <section>
        <h2>Most edited (from session summaries)</h2>
        ${
          edited.length
            ? html`<table>
                <tbody>
                  ${edited.map(
                    (f) =>
                      html`<tr>
                        <td class="path">${fileLink(f.path)}</td>
                        <td class="num">${f.ops} ${f.ops === 1 ? "op" : "ops"}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p class="muted">No edits recorded yet.</p>`
        }
      </section>
    </div>
    <form class="filters" method="get" action="/graph">
      <label>File or symbol <input type="search" name="file" value="${file}" placeholder="src/app.ts" /></label>
      <button type="submit">Neighbours</button>
    </form>
    ${file ? neighbours(app, file) : ""}`;
}
