// Whether the project has a graph at all: what a hook checks before it loads the ranking code.
import type { Db } from "../storage/db.js";
import { hasIndexedFiles, indexRunStamp } from "../storage/graph/counts.js";

/** True when the index holds any file (one row read, whatever the store's size). */
export function hasGraph(db: Db): boolean {
  return hasIndexedFiles(db);
}

/** A stamp of the last finished index run (undefined before the first): what is computed from the graph can be kept
 * until it changes. */
export function graphStamp(db: Db): string | undefined {
  return indexRunStamp(db);
}
