// Tiny inline SVG charts: a line of values and paired bars. Two small charts do not justify a chart library.
import { escapeHtml, Html } from "./html.js";

const W = 520;
const H = 140;
const PAD = 24;

/** A line chart of `points` (label, value), scaled to the largest value. */
export function lineChart(title: string, points: { label: string; value: number }[], unit = ""): Html {
  if (points.length === 0) return new Html(`<p class="muted">${escapeHtml(title)}: no data yet.</p>`);
  const max = Math.max(...points.map((p) => p.value), 1e-9);
  const x = (i: number) => PAD + (points.length === 1 ? (W - 2 * PAD) / 2 : (i * (W - 2 * PAD)) / (points.length - 1));
  const y = (v: number) => H - PAD - (v / max) * (H - 2 * PAD);
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ");
  const dots = points
    .map(
      (p, i) =>
        `<circle cx="${x(i).toFixed(1)}" cy="${y(p.value).toFixed(1)}" r="3" fill="currentColor"><title>${escapeHtml(
          `${p.label}: ${p.value}${unit}`,
        )}</title></circle>`,
    )
    .join("");
  return new Html(
    `<figure><svg class="chart" role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">` +
      `<line class="axis" x1="${PAD}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}"/>` +
      `<text x="${PAD}" y="14">max ${escapeHtml(`${Math.round(max * 100) / 100}${unit}`)}</text>` +
      `<path class="line" d="${path}"/>${dots}</svg><figcaption class="small muted">${escapeHtml(title)}</figcaption></figure>`,
  );
}

/** Paired bars per label: helped (first) and not helped (second). */
export function barChart(title: string, rows: { label: string; a: number; b: number }[]): Html {
  if (rows.length === 0) return new Html(`<p class="muted">${escapeHtml(title)}: no data yet.</p>`);
  const max = Math.max(...rows.map((r) => Math.max(r.a, r.b)), 1);
  const slot = (W - 2 * PAD) / rows.length;
  const bw = Math.max(2, Math.min(18, slot / 2 - 2));
  const h = (v: number) => (v / max) * (H - 2 * PAD);
  const bars = rows
    .map((r, i) => {
      const x0 = PAD + i * slot;
      return (
        `<rect class="bar" x="${x0.toFixed(1)}" y="${(H - PAD - h(r.a)).toFixed(1)}" width="${bw}" height="${h(r.a).toFixed(1)}"><title>${escapeHtml(`${r.label}: ${r.a} helped`)}</title></rect>` +
        `<rect class="bar2" x="${(x0 + bw + 1).toFixed(1)}" y="${(H - PAD - h(r.b)).toFixed(1)}" width="${bw}" height="${h(r.b).toFixed(1)}"><title>${escapeHtml(`${r.label}: ${r.b} not helped`)}</title></rect>`
      );
    })
    .join("");
  return new Html(
    `<figure><svg class="chart" role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">` +
      `<line class="axis" x1="${PAD}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}"/>${bars}</svg>` +
      `<figcaption class="small muted">${escapeHtml(title)} (green: helped, red: not helped)</figcaption></figure>`,
  );
}
