// Human-readable lines about a compression: what was read, the token accounting, the probe scores and what
// went to memory.
import type { CompressResult } from "./compress.js";

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The footer under a compression: what was read, the token accounting, the probe scores and the memory. */
export function renderCompressFooter(r: CompressResult & { route?: { route: string; ms: number } }): string {
  const s = r.stats;
  const lines = [
    `---`,
    `memcards: session ${r.session_id}, compression #${s.compression}, ${r.source.format}${r.source.path ? ` ${r.source.path}` : ""}.`,
    `Summarized ${s.turns_summarized} of ${s.turns_total} turns: ${s.tokens_before} → ${s.tokens_after} tokens (ratio ${s.ratio}); next context ${s.tokens_total_after} tokens instead of ${s.tokens_total_before}.`,
    `Probes: ${pct(s.probe_score_before)} before re-insertion, ${pct(s.probe_score)} after (${s.probes_total} probes).`,
  ];
  if (r.route?.route === "model")
    lines.push(
      `Route: the client's model rewrote Session Intent, Current State and Next Steps (${r.route.ms} ms), no probe lost.`,
    );
  else if (r.route) lines.push("Route: deterministic.");
  if (r.probes.before.failed.length > 0) {
    lines.push(
      `Re-inserted: ${r.probes.before.failed
        .map((p) => `${p.type} "${p.expect.join(" + ")}"`)
        .slice(0, 8)
        .join("; ")}${r.probes.before.failed.length > 8 ? "; …" : ""}.`,
    );
  }
  if (r.memories) {
    const m = r.memories;
    lines.push(
      `Memory: ${m.added} new unit(s) (${m.warm} warm, ${m.cold} cold), ${m.merged} merged, ${m.superseded} superseded, ${m.conflicts} conflict(s); ${m.archived} turn(s) archived.`,
    );
  }
  if (r.memories_queued)
    lines.push(
      `Memory: ${r.memories_queued} turn(s) are being distilled in the background; the units appear in search_memory and recall when done.`,
    );
  for (const n of r.notes) lines.push(n);
  return lines.join("\n");
}

/** One line on what distilling a transcript stored (what `memcards distill` and the SessionEnd hook report). */
export function renderDistilled(r: CompressResult): string {
  const m = r.memories;
  return m
    ? `Distilled ${r.stats.turns_summarized} turn(s) of session ${r.session_id}: ${m.added} new unit(s) (${m.warm} warm, ${m.cold} cold), ${m.merged} merged, ${m.superseded} superseded, ${m.conflicts} conflict(s); ${m.archived} turn(s) archived.`
    : `Nothing distilled for session ${r.session_id}: ${r.notes.join(" ") || "no new turns."}`;
}
