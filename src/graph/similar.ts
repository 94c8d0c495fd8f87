// `similar` edges: vector neighbours among files, rules and memories (not symbols: too many, too little gain).
import type { Db } from "../storage/db.js";
import { writeTx } from "../storage/db.js";
import { nodeVectors, replaceEdges, replaceEdgesFrom } from "../storage/graph.js";

export const SIMILAR_TYPES = ["file", "test", "rule", "memory"] as const;

/**
 * Links each file-level node to its `k` nearest neighbours of the same kinds (cosine similarity as weight,
 * at least `minSimilarity`). Computed in memory over the stored vectors: one pass, no per-node queries.
 */
export function rebuildSimilarEdges(
  db: Db,
  opts: { k?: number; minSimilarity?: number; onlyNodeIds?: readonly number[] } = {},
): number {
  const k = opts.k ?? 5;
  const min = opts.minSimilarity ?? 0.3;
  const items = nodeVectors(db, SIMILAR_TYPES);
  if (items.length < 2) return 0;
  const dim = items[0]!.vector.length;
  const flat = new Float32Array(items.length * dim);
  items.forEach((it, i) => flat.set(it.vector, i * dim));
  const out: { src: number; edges: { dst: number; weight: number }[] }[] = [];
  const only = opts.onlyNodeIds ? new Set(opts.onlyNodeIds) : undefined;
  for (let i = 0; i < items.length; i++) {
    if (only && !only.has(items[i]!.nodeId)) continue;
    const best: { j: number; s: number }[] = [];
    const oi = i * dim;
    for (let j = 0; j < items.length; j++) {
      if (j === i) continue;
      let s = 0;
      const oj = j * dim;
      for (let d = 0; d < dim; d++) s += flat[oi + d]! * flat[oj + d]!;
      if (s < min) continue;
      if (best.length < k) {
        best.push({ j, s });
        best.sort((a, b) => b.s - a.s);
      } else if (s > best[k - 1]!.s) {
        best[k - 1] = { j, s };
        best.sort((a, b) => b.s - a.s);
      }
    }
    out.push({
      src: items[i]!.nodeId,
      edges: best.map((b) => ({ dst: items[b.j]!.nodeId, weight: Math.round(b.s * 1000) / 1000 })),
    });
  }
  if (only) {
    writeTx(db, () => {
      for (const o of out) replaceEdgesFrom(db, o.src, "similar", o.edges);
    });
  } else {
    const edges = out.flatMap((o) =>
      o.edges.map((e) => ({ src: o.src, dst: e.dst, type: "similar", weight: e.weight })),
    );
    writeTx(db, () => replaceEdges(db, ["similar"], edges));
  }
  return out.reduce((n, o) => n + o.edges.length, 0);
}
