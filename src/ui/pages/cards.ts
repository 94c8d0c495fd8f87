// The Cards page: cards served, for which task, their utility components, the outcomes recorded for their units,
// and the share that helped.
import type { App } from "../../app.js";
import { servedCardsWithOutcomes, type ServedWithOutcomes } from "../../cards/served.js";
import { clipWords } from "../../text/cut.js";
import { type Html, html, when } from "../html.js";
import type { PageContext } from "./layout.js";

const COMPONENTS = ["action_shift", "necessity", "outcome_uplift", "risk", "cost"] as const;

const n2 = (v: unknown) => (typeof v === "number" ? v.toFixed(2) : "–");

type Served = ServedWithOutcomes;

/** Cards grouped by the task they were served for, in the order the tasks were first met (newest first). */
function byTask(cards: Served[]): { task: string; cards: Served[] }[] {
  const groups = new Map<string, Served[]>();
  for (const c of cards) {
    const g = groups.get(c.task);
    if (g) g.push(c);
    else groups.set(c.task, [c]);
  }
  return [...groups].map(([task, list]) => ({ task, cards: list }));
}

export function cardsPage(app: App, _ctx: PageContext): Html {
  const cards = servedCardsWithOutcomes(app.scope, 300);
  const helped = cards.reduce((n, c) => n + c.helped, 0);
  const judged = cards.reduce((n, c) => n + c.helped + c.not_helped, 0);
  return html`<p role="status">
      ${cards.length} ${cards.length === 1 ? "card" : "cards"} served; outcomes recorded ${judged}, helped ${helped}
      ${judged ? html`(<strong>${Math.round((100 * helped) / judged)}%</strong> helped)` : ""}
    </p>
    ${
      cards.length === 0
        ? html`<p class="muted">No card served yet: get_memory_cards records each card it serves.</p>`
        : html`<table>
            <thead>
              <tr>
                <th>Served</th>
                <th>Card</th>
                <th class="num">Utility</th>
                ${COMPONENTS.map((c) => html`<th class="num">${c.replace("_", " ")}</th>`)}
                <th class="num">Helped / not</th>
              </tr>
            </thead>
            <tbody>
              ${byTask(cards).map(
                (group) =>
                  html`<tr class="task">
                      <th colspan="${String(4 + COMPONENTS.length)}" title="${group.task}">
                        ${clipWords(group.task, 300)}
                        <span class="small muted">
                          · ${group.cards.length} ${group.cards.length === 1 ? "card" : "cards"}</span
                        >
                      </th>
                    </tr>
                    ${group.cards.map((c) => {
                      const comp = (c.card.components ?? {}) as Record<string, unknown>;
                      return html`<tr>
                        <td>${when(c.served_at)}</td>
                        <td>
                          <span class="chip">${String(c.card.kind ?? "")}</span>
                          ${clipWords(String(c.card.trigger ?? ""), 200)}
                          <div class="small muted">
                            ${clipWords(String(c.card.action_hint ?? ""), 200)} · ${c.unit_key}
                          </div>
                        </td>
                        <td class="num">${n2(c.card.utility)}</td>
                        ${COMPONENTS.map((k) => html`<td class="num">${n2(comp[k])}</td>`)}
                        <td class="num">${c.helped} / ${c.not_helped}</td>
                      </tr>`;
                    })}`,
              )}
            </tbody>
          </table>`
    }`;
}
