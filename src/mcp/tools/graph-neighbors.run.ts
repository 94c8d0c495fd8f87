// The run of tool `graph_neighbors` (its schemas are in graph-neighbors.ts), loaded on its first call.
import { assertIndexed } from "../../graph/index-repository.js";
import { neighborhood } from "../../graph/neighborhood.js";
import { renderNeighborhood } from "../../graph/render.js";
import type { ToolRun } from "../tool.js";
import type { NeighborsInput, Output } from "./graph-neighbors.js";

export const run: ToolRun<typeof NeighborsInput, typeof Output> = async (args, deps) => {
  const app = await deps.app();
  assertIndexed(app.db);
  const n = neighborhood(app.db, args.ref, args.perGroup);
  return {
    text: renderNeighborhood(n),
    data: {
      node: { id: n.node.id, type: n.node.type, path: n.node.path, name: n.node.name },
      edges: Object.fromEntries(n.groups.map((g) => [`${g.direction}:${g.edgeType}`, g.total])),
    },
  };
};
