// The Cards page: cards served, for which task, their utility components, the outcomes recorded for their units,
// and the share that helped.
import type { App } from "../../app.js";
import { servedCards } from "../../storage/ui.js";
import { type Html, html, when } from "../html.js";
import type { PageContext } from "./layout.js";

const COMPONENTS = ["action_shift", "necessity", "outcome_uplift", "risk", "cost"] as const;

const n2 = (v: unknown) => (typeof v === "number" ? v.toFixed(2) : "–");

export function cardsPage(app: App, _ctx: PageContext): Html {
  const cards = servedCards(app.db, app.project.id, 300);
  const helped = cards.reduce((n, c) => n + c.helped, 0);
  const judged = cards.reduce((n, c) => n + c.helped + c.not_helped, 0);
  return html`<p role="status">
      ${cards.length} card(s) served; outcomes recorded ${judged}, helped ${helped}
      ${judged ? html`(<strong>${Math.round((100 * helped) / judged)}%</strong> helped)` : ""}
    </p>
    ${
      cards.length === 0
        ? html`<p class="muted">No card served yet: get_memory_cards records each card it serves.</p>`
        : html`<table>
            <thead>
              <tr>
                <th>Served</th>
                <th>Task</th>
                <th>Card</th>
                <th class="num">Utility</th>
                ${COMPONENTS.map((c) => html`<th class="num">${c.replace("_", " ")}</th>`)}
                <th class="num">Helped / not</th>
              </tr>
            </thead>
            <tbody>
              ${cards.map((c) => {
                const comp = (c.card.components ?? {}) as Record<string, unknown>;
                return html`<tr>
                  <td>${when(c.served_at)}</td>
                  <td>${c.task.slice(0, 160)}</td>
                  <td>
                    <span class="chip">${String(c.card.kind ?? "")}</span> ${String(c.card.trigger ?? "").slice(0, 200)}
                    <div class="small muted">${String(c.card.action_hint ?? "").slice(0, 200)} · ${c.unit_key}</div>
                  </td>
                  <td class="num">${n2(c.card.utility)}</td>
                  ${COMPONENTS.map((k) => html`<td class="num">${n2(comp[k])}</td>`)}
                  <td class="num">${c.helped} / ${c.not_helped}</td>
                </tr>`;
              })}
            </tbody>
          </table>`
    }`;
}
