// Tool `graph_neighbors`: a file's or symbol's one-hop neighborhood in the context graph.
import { z } from "zod";

import { NodeBrief } from "../../graph/node-brief.js";
import { MAX_PATH_CHARS } from "../../limits.js";
import { defineTool } from "../tool.js";

export const NeighborsInput = z
  .object({
    ref: z
      .string()
      .min(1)
      .max(MAX_PATH_CHARS)
      .describe("a repo-relative file path, a symbol name (or Parent.name), or a node id"),
    perGroup: z.number().int().min(1).max(100).default(15).describe("nodes shown per edge type"),
  })
  .strict();

export const Output = z.object({
  node: NodeBrief.pick({ id: true, type: true, path: true, name: true }),
  /** Neighbors per `direction:edge_type` (out:imports, in:test_covers, ...), counted in full. */
  edges: z.record(z.string(), z.number()),
});

export const graphNeighborsTool = defineTool({
  name: "graph_neighbors",
  title: "Graph neighbors",
  description:
    "Show a file's or symbol's one-hop neighborhood in the context graph: what it contains, imports and is imported by, the tests covering it, the rules governing it, similar files.",
  input: NeighborsInput,
  output: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  load: async () => (await import("./graph-neighbors.run.js")).run,
});
