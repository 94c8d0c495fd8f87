// Tool `search_memory`: this project's memory units (and optionally the raw archive) matching a query.
import { z } from "zod";

import { SearchInput, searchMemory } from "../../memory/service.js";
import { defineTool } from "../tool.js";

const Output = z.object({
  hits: z.array(z.object({ id: z.number(), category: z.string(), score: z.number() })),
  /** Matching turns from the raw archive (include_raw). */
  raw: z.number(),
});

export const searchMemoryTool = defineTool({
  name: "search_memory",
  title: "Search memory",
  description:
    'Search this project\'s memory units (and, with include_raw, the archive of past turns): "did we promise X?", "what did Y measure?", "has Z failed before?". Each hit has its evidence (session, turn, quote) and history (what it superseded, what it conflicts with). Example: {"query": "flaky login test", "category": "failure"}.',
  input: SearchInput,
  output: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, deps) {
    const app = await deps.app();
    // Hybrid when the project has vectors: unit vectors are computed with the graph's (build_context_graph).
    const vector = app.embedding.vectorsEnabled
      ? (await app.embedding.embedder.embed([args.query.slice(0, 4000)]))[0]
      : undefined;
    const r = searchMemory(app.scope, args, vector);
    const lines = r.hits.map((h) => {
      const ev = h.evidence[0];
      const hist = h.history.supersedes.length
        ? `; supersedes #${h.history.supersedes.map((x) => x.id).join(", #")}`
        : "";
      const conf = h.history.conflicts_with ? `; conflicts with #${h.history.conflicts_with.id}` : "";
      return `- #${h.id} [${h.category}, ${h.tier}${h.status !== "active" ? `, ${h.status}` : ""}] ${h.text.replace(/\s+/g, " ").slice(0, 300)}${ev ? ` (${ev.session ?? ""} ${ev.turn})` : ""}${hist}${conf}`;
    });
    const raw = r.raw.map(
      (x) => `- ${x.session_id} ${x.turn_id} ${x.role}: ${x.text.replace(/\s+/g, " ").slice(0, 240)}`,
    );
    const text = [
      lines.length ? lines.join("\n") : "No memory unit matches.",
      ...(raw.length ? ["", "From the raw archive:", ...raw] : []),
    ].join("\n");
    return {
      text,
      data: { hits: r.hits.map((h) => ({ id: h.id, category: h.category, score: h.score })), raw: r.raw.length },
    };
  },
});
