// Tool `search_memory`: this project's memory units (and optionally the raw archive) matching a query.
import { z } from "zod";

import { SearchInput } from "../../memory/input.js";
import { defineTool } from "../tool.js";

export const Output = z.object({
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
  load: async () => (await import("./search-memory.run.js")).run,
});
