// Memory as text: search hits with their evidence and history, and unit lists (both fronts print these).
import type { MemoryRow } from "../storage/memories.js";
import { clipWords } from "../text/cut.js";
import type { MemoryHit, RawHit } from "./service.js";

const oneLine = clipWords;
const statusOf = (status: string) => (status !== "active" ? `, ${status}` : "");

/** One line per hit (evidence, what it supersedes, what it conflicts with), then the raw archive's turns. */
export function renderMemoryHits(r: { hits: MemoryHit[]; raw: RawHit[] }): string {
  const lines = r.hits.map((h) => {
    const ev = h.evidence[0];
    const hist = h.history.supersedes.length
      ? `; supersedes #${h.history.supersedes.map((x) => x.id).join(", #")}`
      : "";
    const conf = h.history.conflicts_with ? `; conflicts with #${h.history.conflicts_with.id}` : "";
    const head = `- #${h.id} [${h.category}, ${h.tier}${statusOf(h.status)}${h.stale ? `, stale: ${h.stale.join(", ")} changed since` : ""}] ${oneLine(h.text, 1200)}${ev ? ` (${ev.session ?? ""} ${ev.turn})` : ""}${hist}${conf}`;
    return h.window ? `${head}\n  > ${h.window.replace(/\n/g, "\n  > ")}` : head;
  });
  const raw = r.raw.map((x) => `- ${x.sessionId} ${x.turnId} ${x.role}: ${oneLine(x.text, 600)}`);
  return [
    lines.length ? lines.join("\n") : "No memory unit matches.",
    ...(raw.length ? ["", "From the raw archive:", ...raw] : []),
  ].join("\n");
}

/** One line per stored unit, or how units come to exist when there are none. */
export function renderMemoryList(rows: readonly MemoryRow[]): string {
  if (rows.length === 0)
    return "no memory units yet: they are distilled on each compression (compress_context, memcards compress, the hooks)";
  return rows.map((m) => `#${m.id} ${m.category} [${m.tier}${statusOf(m.status)}] ${oneLine(m.text, 160)}`).join("\n");
}
