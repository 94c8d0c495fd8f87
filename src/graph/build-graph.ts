// One graph build as the app runs it: index the repository, then embed what changed and refresh `similar` edges.
import type { EmbedderChoice } from "../embeddings/select.js";
import type { Logger } from "../log.js";
import { noProject } from "../project/root.js";
import type { RepoParser } from "../repo/parse.js";
import { edgeCount } from "../storage/graph/counts.js";
import type { ProjectScope } from "../storage/scope.js";
import { pendingNodeIds, pendingVectorItems } from "../storage/vectors.js";
import { embedPending } from "../vectors/embed-pending.js";
import { markPhase, phaseComplete } from "./build-state.js";
import { type IndexProgress, indexRepository, type IndexResult } from "./index-repository.js";
import { rebuildSimilarEdges, SIMILAR_TYPES } from "./similar.js";

export interface GraphBuildOptions {
  /** Directory to index; defaults to the project root. */
  path?: string;
  /** Only these repo paths (files, or folders for everything under them): what a watcher saw change. */
  paths?: readonly string[];
  /** Skip vectors (lexical index only). */
  lexicalOnly?: boolean;
  parser?: RepoParser;
  isCancelled?: () => boolean;
  onProgress?: (p: IndexProgress | { phase: "embed"; done: number; total: number; elapsedMs: number }) => void;
}

/** What a build needs beside the project: the embedder for the vectors phase and a logger. */
export interface GraphBuildDeps {
  embedding: Pick<EmbedderChoice, "embedder" | "vectorsEnabled">;
  logger: Logger;
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
export async function buildGraph(
  scope: ProjectScope,
  deps: GraphBuildDeps,
  opts: GraphBuildOptions = {},
): Promise<GraphBuildResult> {
  const { db, projectId } = scope;
  if (scope.userStore && !opts.path) throw noProject(scope.root);
  const { embedder, vectorsEnabled } = deps.embedding;
  const result = await indexRepository({
    db,
    projectId,
    root: opts.path ?? scope.root,
    logger: deps.logger,
    ...(opts.parser ? { parser: opts.parser } : {}),
    ...(opts.paths ? { paths: opts.paths } : {}),
    ...(opts.isCancelled ? { isCancelled: opts.isCancelled } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
  let embedded = 0;
  let similarEdges = result.counts.edges.similar ?? 0;
  const t0 = performance.now();
  // Vectors embedded by an interrupted phase are no longer pending, yet their similar edges were never built.
  const owed = !phaseComplete(db, "vectors");
  // Nothing to embed and no similar edges owed: the phase is left as it stands (a no-change run writes nothing).
  const vectorWork = () => owed || pendingVectorItems(db, 1, projectId).length > 0;
  if (!opts.lexicalOnly && !result.cancelled && vectorsEnabled && vectorWork()) {
    markPhase(db, result.buildId, "vectors", false);
    const changedFileLevel = pendingNodeIds(db, projectId, SIMILAR_TYPES);
    const fileLevelTotal = SIMILAR_TYPES.reduce((n, t) => n + (result.counts.nodes[t] ?? 0), 0);
    const controller = new AbortController();
    const timer = opts.isCancelled ? setInterval(() => opts.isCancelled?.() && controller.abort(), 50) : undefined;
    try {
      embedded = await embedPending(db, embedder, {
        projectId,
        signal: controller.signal,
        onProgress: (done) =>
          opts.onProgress?.({ phase: "embed", done, total: 0, elapsedMs: Math.round(performance.now() - t0) }),
      });
    } finally {
      if (timer) clearInterval(timer);
    }
    if (changedFileLevel.length > 0 || owed) {
      // A few changed files: recompute their neighbors only; many: rebuild all.
      const incremental = !owed && changedFileLevel.length < 0.2 * fileLevelTotal;
      const n = rebuildSimilarEdges(db, incremental ? { onlyNodeIds: changedFileLevel } : {});
      similarEdges = incremental ? edgeCount(db, "similar") : n;
    }
    if (!controller.signal.aborted) markPhase(db, result.buildId, "vectors", true);
  }
  const embedMs = Math.round(performance.now() - t0);
  if (similarEdges) result.counts.edges.similar = similarEdges;
  return { ...result, embedded, similarEdges, embedMs };
}
