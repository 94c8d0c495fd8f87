// What the graph holds: counts per node and edge type, build state, last run.
import type { Db } from "../storage/db.js";
import { graphCounts } from "../storage/graph/counts.js";
import { getMeta } from "../storage/meta.js";
import { readLastRun } from "./build-state.js";

export function graphStats(db: Db, watching: boolean, runningJob?: string) {
  const counts = graphCounts(db);
  const last = readLastRun(db);
  return {
    files: counts.files,
    nodes: counts.nodes,
    edges: counts.edges,
    state: getMeta(db, "graph.state") ?? "empty",
    lastRun: last ?? null,
    watching,
    runningJob: runningJob ?? null,
  };
}
