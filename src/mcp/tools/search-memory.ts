// Tool `search_memory`: this project's memory units (and optionally the raw archive) matching a query.
import { z } from "zod";

import { renderMemoryHits } from "../../memory/render.js";
import { SearchInput, searchMemoryHybrid } from "../../memory/service.js";
import { teamSearchFor } from "../../team/deps.js";
import { renderTeamHits } from "../../team/render.js";
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
    'Search this project\'s memory (with include_raw, past turns too): "which file changed for X?", "has Z failed before?". A hit has its evidence, history, and a stale mark when a file it cites changed. Example: {"query": "flaky login test", "category": "failure"}.',
  input: SearchInput,
  output: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, deps) {
    const app = await deps.app();
    // Hybrid when the project has vectors (unit vectors are computed with the graph's), as the CLI's search is.
    const r = await searchMemoryHybrid(app.scope, args, app.embedding);
    const team = await teamSearchFor(app.scope, app.config.team, args.query, {
      includeInactive: args.includeInactive ?? false,
      ...(app.embedding.vectorsEnabled ? { embedder: app.embedding.embedder } : {}),
    });
    return {
      text: team ? `${renderMemoryHits(r)}\n\n${renderTeamHits(team)}` : renderMemoryHits(r),
      // The team's units (with their authors) are in the text only: the tool list stays as small as it was.
      data: { hits: r.hits.map((h) => ({ id: h.id, category: h.category, score: h.score })), raw: r.raw.length },
    };
  },
});
