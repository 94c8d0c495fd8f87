// What the graph holds: counts per node and edge type, build state, last run, the indexed files by language and size.
import type { Db } from "../storage/db.js";
import { graphCounts } from "../storage/graph/counts.js";
import { languageCounts, largestFiles } from "../storage/graph/files.js";
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

/** The indexed files per language (most first) and the `largest` largest files. */
export function fileFacts(
  db: Db,
  largest: number,
): {
  languages: { language: string; n: number }[];
  largest: { path: string; size: number; language: string | null }[];
} {
  return { languages: languageCounts(db), largest: largestFiles(db, largest) };
}
