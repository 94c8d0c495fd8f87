// One graph build as the app runs it: index the repository, then embed what changed and refresh `similar` edges.
import type { App } from "../app.js";
import { embedPending } from "../embeddings/embed-pending.js";
import type { RepoParser } from "../repo/parse.js";
import { graphCounts } from "../storage/graph/counts.js";
import { pendingNodeIds } from "../storage/vectors.js";
import { type IndexProgress, indexRepository, type IndexResult } from "./build.js";
import { markPhase, phaseComplete } from "./build-state.js";
import { rebuildSimilarEdges, SIMILAR_TYPES } from "./similar.js";

export interface GraphBuildOptions {
  /** Directory to index; defaults to the project root. */
  path?: string;
  /** Skip vectors (lexical index only). */
  lexicalOnly?: boolean;
  parser?: RepoParser;
  isCancelled?: () => boolean;
  onProgress?: (p: IndexProgress | { phase: "embed"; done: number; total: number; elapsedMs: number }) => void;
}

export interface GraphBuildResult extends IndexResult {
  embedded: number;
  similarEdges: number;
  embedMs: number;
}

/**
 * Indexes the project, then (unless lexical only) embeds pending items and rebuilds similar edges: only those of
 * changed nodes when few changed, all of them when many did or an earlier vectors phase was interrupted.
 */
export async function buildGraph(app: App, opts: GraphBuildOptions = {}): Promise<GraphBuildResult> {
  const result = await indexRepository({
    db: app.db,
    projectId: app.project.id,
    root: opts.path ?? app.location.root,
    logger: app.logger,
    ...(opts.parser ? { parser: opts.parser } : {}),
    ...(opts.isCancelled ? { isCancelled: opts.isCancelled } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
  let embedded = 0;
  let similarEdges = result.counts.edges.similar ?? 0;
  const t0 = performance.now();
  if (!opts.lexicalOnly && !result.cancelled && app.embedding.vectorsEnabled) {
    // Vectors embedded by an interrupted phase are no longer pending, yet their similar edges were never built.
    const owed = !phaseComplete(app.db, "vectors");
    markPhase(app.db, result.buildId, "vectors", false);
    const changedFileLevel = pendingNodeIds(app.db, SIMILAR_TYPES);
    const fileLevelTotal = SIMILAR_TYPES.reduce((n, t) => n + (result.counts.nodes[t] ?? 0), 0);
    const controller = new AbortController();
    const timer = opts.isCancelled ? setInterval(() => opts.isCancelled?.() && controller.abort(), 50) : undefined;
    try {
      embedded = await embedPending(app.db, app.embedding.embedder, {
        projectId: app.project.id,
        signal: controller.signal,
        onProgress: (done) =>
          opts.onProgress?.({ phase: "embed", done, total: 0, elapsedMs: Math.round(performance.now() - t0) }),
      });
    } finally {
      if (timer) clearInterval(timer);
    }
    if (changedFileLevel.length > 0 || owed) {
      // A few changed files: recompute their neighbours only; many: rebuild all.
      const incremental = !owed && changedFileLevel.length < 0.2 * fileLevelTotal;
      const n = rebuildSimilarEdges(app.db, incremental ? { onlyNodeIds: changedFileLevel } : {});
      similarEdges = incremental ? (graphCounts(app.db).edges.similar ?? n) : n;
    }
    if (!controller.signal.aborted) markPhase(app.db, result.buildId, "vectors", true);
  }
  const embedMs = Math.round(performance.now() - t0);
  if (similarEdges) result.counts.edges.similar = similarEdges;
  return { ...result, embedded, similarEdges, embedMs };
}
