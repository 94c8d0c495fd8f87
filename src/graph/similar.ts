// `similar` edges: vector neighbors among files, rules and memories (not symbols: too many, too little gain).
import type { Db } from "../storage/db.js";
import { writeTx } from "../storage/db.js";
import { replaceEdges, replaceEdgesFrom } from "../storage/graph/edges.js";
import { nodeVectors } from "../storage/vectors.js";

export const SIMILAR_TYPES = ["file", "test", "rule", "memory"] as const;

/**
 * Links each file-level node to its `k` nearest neighbors of the same kinds (cosine similarity as weight,
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
  const n = items.length;
  const only = opts.onlyNodeIds ? new Set(opts.onlyNodeIds) : undefined;
  // Top-k per node as parallel arrays kept sorted by score (k is small: insertion beats sorting).
  const topJ = new Int32Array(n * k).fill(-1);
  const topS = new Float32Array(n * k).fill(-Infinity);
  const offer = (i: number, j: number, s: number): void => {
    const o = i * k;
    if (s <= topS[o + k - 1]!) return;
    let p = k - 1;
    while (p > 0 && topS[o + p - 1]! < s) {
      topS[o + p] = topS[o + p - 1]!;
      topJ[o + p] = topJ[o + p - 1]!;
      p--;
    }
    topS[o + p] = s;
    topJ[o + p] = j;
  };
  const dot = (oi: number, oj: number): number => {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let d = 0;
    for (; d + 3 < dim; d += 4) {
      s0 += flat[oi + d]! * flat[oj + d]!;
      s1 += flat[oi + d + 1]! * flat[oj + d + 1]!;
      s2 += flat[oi + d + 2]! * flat[oj + d + 2]!;
      s3 += flat[oi + d + 3]! * flat[oj + d + 3]!;
    }
    for (; d < dim; d++) s0 += flat[oi + d]! * flat[oj + d]!;
    return s0 + s1 + s2 + s3;
  };
  if (only) {
    for (let i = 0; i < n; i++) {
      if (!only.has(items[i]!.nodeId)) continue;
      for (let j = 0; j < n; j++) {
        if (j === i) continue;
        const s = dot(i * dim, j * dim);
        if (s >= min) offer(i, j, s);
      }
    }
  } else {
    // Similarity is symmetric: each pair is scored once and offered to both ends.
    for (let i = 0; i < n; i++) {
      const oi = i * dim;
      for (let j = i + 1; j < n; j++) {
        const s = dot(oi, j * dim);
        if (s < min) continue;
        offer(i, j, s);
        offer(j, i, s);
      }
    }
  }
  const out: { src: number; edges: { dst: number; weight: number }[] }[] = [];
  for (let i = 0; i < n; i++) {
    if (only && !only.has(items[i]!.nodeId)) continue;
    const edges: { dst: number; weight: number }[] = [];
    for (let p = 0; p < k; p++) {
      const j = topJ[i * k + p]!;
      if (j < 0) break;
      edges.push({ dst: items[j]!.nodeId, weight: Math.round(topS[i * k + p]! * 1000) / 1000 });
    }
    out.push({ src: items[i]!.nodeId, edges });
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
