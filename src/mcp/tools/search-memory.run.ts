// The run of tool `search_memory` (its schemas are in search-memory.ts), loaded on its first call.
import type { SearchInput } from "../../memory/input.js";
import { renderMemoryHits } from "../../memory/render.js";
import { searchMemoryHybrid } from "../../memory/service.js";
import { teamSearchFor } from "../../team/deps.js";
import { renderTeamHits } from "../../team/render.js";
import type { ToolRun } from "../tool.js";
import type { Output } from "./search-memory.js";

export const run: ToolRun<typeof SearchInput, typeof Output> = async (args, deps) => {
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
};
