// Human-readable lines about a compression: what was read, the token accounting, the probe scores and what
// went to memory.
import { count } from "../text/plural.js";
import type { CompressResult } from "./compress.js";

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The footer under a compression: what was read, the token accounting, the probe scores and the memory. */
export function renderCompressFooter(r: CompressResult & { route?: { route: string; ms: number } }): string {
  const s = r.stats;
  // Nothing new since the last compression: say so in one line, without ratios and probes of an empty span.
  if (s.turns_summarized === 0 && s.compression > 0)
    return [
      `---`,
      `memcards: session ${r.session_id} is already summarized to its end (compression #${s.compression}); nothing new was read or stored.`,
      pageLine(r),
      ...r.notes.filter((n) => !/^Nothing new to summarize/.test(n)),
    ].join("\n");
  const lines = [
    `---`,
    `memcards: session ${r.session_id}, compression #${s.compression}, ${r.source.format}${r.source.path ? ` ${r.source.path}` : ""}.`,
    `Summarized ${s.turns_summarized} of ${s.turns_total} turns: ${s.tokens_before} → ${s.tokens_after} tokens (ratio ${s.ratio}); next context ${s.tokens_total_after} tokens instead of ${s.tokens_total_before}.`,
    pageLine(r),
    eventLine(r),
    probeLine(r),
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
      `Memory: ${count(m.added, "new unit")} (${m.warm} warm, ${m.cold} cold), ${m.merged} merged, ${m.superseded} superseded, ${count(m.conflicts, "conflict")}; ${count(m.archived, "turn")} archived.`,
    );
  }
  if (r.memories_queued)
    lines.push(
      `Memory: ${count(r.memories_queued, "turn")} ${r.memories_queued === 1 ? "is" : "are"} being distilled in the background; the units appear in search_memory and recall when done.`,
    );
  for (const n of r.notes) lines.push(n);
  return lines.join("\n");
}

/** What the page measured: its tokens against the budget, split into summary and recent messages. */
function pageLine(r: CompressResult): string {
  const page = r.stats.tokens_total_after;
  const budget = r.stats.budget.tokens;
  return `Page: ${page} tokens against a budget of ${budget} (summary ${r.stats.tokens_after}, recent messages ${Math.max(0, page - r.stats.tokens_after)})${page > budget ? "; over the budget" : ""}.`;
}

/** What the event stream says: failures settled by a later run, files reverted. */
function eventLine(r: CompressResult): string {
  const s = r.summary.sections;
  const resolved = s.failures.filter((f) => f.resolved).length;
  const files = Object.values(s.files);
  const reverted = files.filter((ops) => ops[ops.length - 1]?.op.startsWith("reverted")).length;
  return `Events: ${count(s.failures.length, "failure")}, ${resolved} settled by a later clean run; ${count(files.length, "file")} changed, ${reverted} reverted.`;
}

/** The probes as measured on the summarizer's draft, and what re-insertion could not fit. */
function probeLine(r: CompressResult): string {
  const s = r.stats;
  const missed = r.probes.before.failed.length;
  return `Probes: the draft held ${pct(s.probe_score_before)} of ${s.probes_total} facts checked; ${missed} missing, ${s.probes_failed.length} of them still missing after re-insertion within the budget.`;
}

/** One line on what distilling a transcript stored (what `memcards distill` and the SessionEnd hook report). */
export function renderDistilled(r: CompressResult): string {
  const m = r.memories;
  return m
    ? `Distilled ${count(r.stats.turns_summarized, "turn")} of session ${r.session_id}: ${count(m.added, "new unit")} (${m.warm} warm, ${m.cold} cold), ${m.merged} merged, ${m.superseded} superseded, ${count(m.conflicts, "conflict")}; ${count(m.archived, "turn")} archived.`
    : `Nothing distilled for session ${r.session_id}: ${r.notes.join(" ") || "no new turns."}`;
}
