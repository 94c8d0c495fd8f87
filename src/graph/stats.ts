// What the graph holds: counts per node and edge type, build state, last run.
import type { Db } from "../storage/db.js";
import { graphCounts } from "../storage/graph.js";
import { getMeta } from "../storage/meta.js";

export function graphStats(db: Db, watching: boolean, runningJob?: string) {
  const counts = graphCounts(db);
  const last = getMeta(db, "graph.last_run");
  return {
    files: counts.files,
    nodes: counts.nodes,
    edges: counts.edges,
    state: getMeta(db, "graph.state") ?? "empty",
    lastRun: last ? (JSON.parse(last) as unknown) : null,
    watching,
    runningJob: runningJob ?? null,
  };
}
