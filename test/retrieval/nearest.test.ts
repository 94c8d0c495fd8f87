// Nearest vectors from the in-memory copy: the same neighbours, in the same order, as sqlite-vec's kNN on a real
// store, and a vector written after the copy was read is seen by the next query.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { createNearestVectors, nearestRows, vectorMatrix } from "../../src/retrieval/nearest.js";
import { openDatabase } from "../../src/storage/db.js";
import { nearestVectors, storeVectors } from "../../src/storage/vectors.js";
import { embedPending } from "../../src/vectors/embed-pending.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

const TASKS = ["circle radius diameter", "store get put key", "render the widget", "parse config handler"];

async function settled(n: ReturnType<typeof createNearestVectors>, q: Float32Array): Promise<void> {
  n.warm();
  // The copy is read in timer steps; a test store's few chunks take one or two.
  for (let i = 0; i < 50; i++) await new Promise((r) => setTimeout(r, 2));
  n.nearest(q, 1);
}

describe("nearest vectors in memory", () => {
  let app: App;
  beforeAll(async () => {
    const root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
    await embedPending(app.db, app.embedding.embedder);
  });
  afterAll(async () => {
    await app.close();
  });

  it("finds what sqlite-vec finds, in the same order", async () => {
    const near = createNearestVectors(app.db);
    const queries = await app.embedding.embedder.embed(TASKS);
    expect(near.ready()).toBe(false);
    await settled(near, queries[0]!);
    expect(near.ready()).toBe(true);
    for (const [i, q] of queries.entries()) {
      const want = nearestVectors(app.db, q, 20, "node");
      expect(want.length, TASKS[i]).toBeGreaterThan(0);
      const got = near.nearest(q, 20, "node");
      expect(
        got.map((g) => g.ownerId),
        TASKS[i],
      ).toEqual(want.map((w) => w.ownerId));
      got.forEach((g, j) => expect(g.distance).toBeCloseTo(want[j]!.distance, 5));
    }
  });

  it("sees a vector stored after the copy was read", async () => {
    const near = createNearestVectors(app.db);
    const [q] = await app.embedding.embedder.embed(["zebrafish habitat okapi"]);
    await settled(near, q!);
    const target = nearestVectors(app.db, q!, 50).at(-1)!;
    expect(near.nearest(q!, 1)[0]?.id).not.toBe(target.id);
    storeVectors(app.db, [{ id: target.id, vector: q! }]);
    await settled(near, q!);
    const top = near.nearest(q!, 1)[0];
    expect(top?.id).toBe(target.id);
    expect(top?.distance).toBeCloseTo(0, 5);
  });

  it("sees a vector another connection replaced in place (same item, same count of vectors)", async () => {
    const near = createNearestVectors(app.db);
    const [q] = await app.embedding.embedder.embed(["capybara lighthouse quokka"]);
    await settled(near, q!);
    const target = nearestVectors(app.db, q!, 50).at(-1)!;
    expect(near.nearest(q!, 1)[0]?.id).not.toBe(target.id);
    // Another process (a hook's re-index of an edited file) re-embeds an existing item: the item keeps its id and
    // the table keeps its count and highest id.
    const other = openDatabase(app.db.name);
    try {
      storeVectors(other, [{ id: target.id, vector: q! }]);
    } finally {
      other.close();
    }
    await settled(near, q!);
    const top = near.nearest(q!, 1)[0];
    expect(top?.id).toBe(target.id);
    expect(top?.distance).toBeCloseTo(0, 5);
  });

  it("reads the copy after a warm-up with nothing else to wake the process, never inside the query that wants it", async () => {
    const near = createNearestVectors(app.db);
    const [q] = await app.embedding.embedder.embed(["circle radius"]);
    near.nearest(q!, 5);
    near.nearest(q!, 5); // the second query wants the copy; it is answered by sqlite-vec, the copy read after it
    expect(near.ready()).toBe(false);
    // Only a timer pending: the copy's steps must run without any input arriving.
    for (let i = 0; i < 250 && !near.ready(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(near.ready()).toBe(true);
  });

  it("orders by cosine distance with ties by id, and skips zero vectors", () => {
    const v = (...xs: number[]) => Float32Array.from(xs);
    const m = vectorMatrix([
      { id: 3, vector: v(1, 0) },
      { id: 1, vector: v(2, 0) },
      { id: 2, vector: v(0, 0) },
      { id: 4, vector: v(0, 1) },
    ]);
    expect(m.rows).toBe(3);
    const r = nearestRows(m, v(1, 0.1), 3);
    expect(r.map((x) => x.id)).toEqual([1, 3, 4]);
    expect(r[0]!.distance).toBeCloseTo(1 - 1 / Math.sqrt(1.01), 6);
  });

  it("keeps dense vectors (a sentence model's, every dimension set) in no more memory than their rows", () => {
    const rows = 500;
    const dim = 384;
    const next = lcg(7);
    const items = Array.from({ length: rows }, (_, i) => ({
      id: i + 1,
      vector: Float32Array.from({ length: dim }, () => next() - 0.5),
    }));
    const m = vectorMatrix(items);
    expect(m.rows).toBe(rows);
    // The rows themselves, their ids and lengths; a copy holding a row number beside each component holds twice that.
    expect(heldBytes(m)).toBeLessThanOrEqual(rows * dim * 4 + rows * 8 + 4 * (dim + 1));
    const q = items[42]!.vector;
    expect(nearestRows(m, q, 3).map((r) => r.id)).toEqual(bruteForce(items, q, 3));
  });

  it("finds what sqlite-vec finds on a store of dense vectors", async () => {
    const near = createNearestVectors(app.db);
    const ids = (app.db.prepare("SELECT rowid AS id FROM vectors").all() as { id: number }[]).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(20);
    const dim = app.embedding.embedder.dimension;
    const next = lcg(11);
    const dense = () => Float32Array.from({ length: dim }, () => next() - 0.5);
    storeVectors(
      app.db,
      ids.map((id) => ({ id, vector: dense() })),
    );
    const q = dense();
    await settled(near, q);
    expect(near.ready()).toBe(true);
    const want = nearestVectors(app.db, q, 10);
    const got = near.nearest(q, 10);
    expect(got.map((g) => g.id)).toEqual(want.map((w) => w.id));
    got.forEach((g, j) => expect(g.distance).toBeCloseTo(want[j]!.distance, 5));
  });
});

/** Pseudo-random numbers in [0, 1), the same for a seed. */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** Bytes of the typed arrays `x` holds (each buffer once). */
function heldBytes(x: unknown, seen = new Set<ArrayBufferLike>()): number {
  if (ArrayBuffer.isView(x)) {
    if (seen.has(x.buffer)) return 0;
    seen.add(x.buffer);
    return x.buffer.byteLength;
  }
  if (x && typeof x === "object") return Object.values(x).reduce<number>((s, v) => s + heldBytes(v, seen), 0);
  return 0;
}

/** The ids of the `k` items nearest to `q` by cosine, ties by id, computed directly. */
function bruteForce(items: { id: number; vector: Float32Array }[], q: Float32Array, k: number): number[] {
  const cos = (a: Float32Array) => {
    let dot = 0;
    let na = 0;
    let nq = 0;
    a.forEach((x, i) => {
      dot += x * q[i]!;
      na += x * x;
      nq += q[i]! * q[i]!;
    });
    return dot / Math.sqrt(na * nq);
  };
  return items
    .map((it) => ({ id: it.id, s: cos(it.vector) }))
    .sort((a, b) => b.s - a.s || a.id - b.id)
    .slice(0, k)
    .map((x) => x.id);
}
