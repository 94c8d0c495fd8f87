// Nearest stored vectors by cosine distance, over an in-memory copy of the vector table. sqlite-vec's vec0 answers
// `MATCH … AND k = ?` by reading and comparing every stored vector on each query (about 100 ms for 43k vectors of
// 256 dimensions); the copy is read once (sparse vectors' non-zero components dimension by dimension, dense vectors
// row by row, and each vector's length) and compared over the query's non-zero dimensions only. The results are the
// same neighbours with the same cosine distances (up to float rounding), ties broken by id. The copy is read after a warm-up or from a store's second query on: a
// one-off query does not pay for a copy it would not use.
import type { Db } from "../storage/db.js";
import { getEmbedderBinding } from "../storage/meta.js";
import {
  nearestVectors,
  quantizeVector,
  type VectorChunk,
  vectorChunks,
  vectorItemOwners,
  vectorsFingerprint,
  vectorSlots,
  vectorsVersion,
} from "../storage/vectors.js";

export interface Neighbour {
  id: number;
  ownerType: string;
  ownerId: number;
  distance: number;
}

/** Non-zero components by dimension (see `sparseColumns`). */
export interface SparseColumns {
  starts: Int32Array;
  rows: Int32Array;
  values: Int8Array | Float32Array;
}

/**
 * Copies of the stored vectors, as stored (int8 vectors stay int8: a quarter of the memory of floats), with each row's
 * inverse length and its item id. Sparse vectors (a hashed vector has about a quarter of its dimensions set) keep
 * only their non-zero components, dimension by dimension (`sparseColumns`): a query reads the components of its own
 * non-zero dimensions only (a short task's vector has few), not every row's. Dense vectors (a sentence model's sets
 * every dimension) stay rows: a row number beside each component would take up to five times their memory and
 * save nothing. The owners of the few rows a query returns are read then, as sqlite-vec's kNN joins them.
 */
export interface VectorMatrix {
  dimension: number;
  rows: number;
  /** The rows' components: non-zero ones by dimension (sparse vectors), or row after row (dense vectors). */
  layout: { columns: SparseColumns } | { data: Int8Array | Float32Array };
  /** 1 / length of each row (rows of length 0 are never kept). */
  inverseNorms: Float32Array;
  ids: Int32Array;
  /** Rows read from int8 vectors: a query is compared quantized the same way, as sqlite-vec compares it. */
  quantized?: boolean;
}

/** 1 / the length of `v[from … from + n)`, or 0 for a zero vector. */
function inverseNorm(v: ArrayLike<number>, from: number, n: number): number {
  let norm = 0;
  for (let i = from; i < from + n; i++) norm += v[i]! * v[i]!;
  return norm === 0 ? 0 : 1 / Math.sqrt(norm);
}

/** Packs vectors into a matrix; a zero vector (no direction) is left out, as vec0's kNN skips it. */
export function vectorMatrix(items: readonly { id: number; vector: Float32Array }[]) {
  const dimension = items[0]?.vector.length ?? 0;
  const kept = items.filter((v) => v.vector.length === dimension && v.vector.some((x) => x !== 0));
  const data = new Float32Array(kept.length * dimension);
  const inverseNorms = new Float32Array(kept.length);
  const ids = new Int32Array(kept.length);
  kept.forEach((v, r) => {
    data.set(v.vector, r * dimension);
    inverseNorms[r] = inverseNorm(v.vector, 0, dimension);
    ids[r] = v.id;
  });
  return {
    dimension,
    rows: kept.length,
    layout: layOut(data, dimension, kept.length),
    inverseNorms,
    ids,
  } satisfies VectorMatrix;
}

/**
 * Vectors with at most this share of their components non-zero are kept by dimension (`sparseColumns`); denser ones
 * as rows. Past it the columns would hold more than twice the int8 rows' bytes, and a query would read most of them.
 */
const SPARSE_SHARE = 0.4;

/** Rows (`rows` of `dim` components, row after row) as the copy keeps them: by dimension when sparse, else as given. */
function layOut(
  rowMajor: Int8Array | Float32Array,
  dim: number,
  rows: number,
): { columns: SparseColumns } | { data: Int8Array | Float32Array } {
  let nonZero = 0;
  for (let i = 0; i < rows * dim; i++) if (rowMajor[i] !== 0) nonZero++;
  return nonZero <= SPARSE_SHARE * rows * dim ? { columns: sparseColumns(rowMajor, dim, rows) } : { data: rowMajor };
}

/**
 * The non-zero components of row-major rows (`rows` of `dim` components), dimension by dimension: for dimension d,
 * the rows `rows[starts[d] … starts[d + 1])` (in increasing order) and their components in `values`.
 */
export function sparseColumns(rowMajor: Int8Array | Float32Array, dim: number, rows: number): SparseColumns {
  const starts = new Int32Array(dim + 1);
  for (let r = 0, off = 0; r < rows; r++, off += dim)
    for (let d = 0; d < dim; d++) if (rowMajor[off + d] !== 0) starts[d + 1]!++;
  for (let d = 0; d < dim; d++) starts[d + 1] = starts[d + 1]! + starts[d]!;
  const total = starts[dim]!;
  const at = starts.slice(0, dim);
  const rowOf = new Int32Array(total);
  const values = rowMajor instanceof Int8Array ? new Int8Array(total) : new Float32Array(total);
  for (let r = 0, off = 0; r < rows; r++, off += dim)
    for (let d = 0; d < dim; d++) {
      const x = rowMajor[off + d]!;
      if (x === 0) continue;
      const p = at[d]!++;
      rowOf[p] = r;
      values[p] = x;
    }
  return { starts, rows: rowOf, values };
}

/** The `k` rows nearest to `query` by cosine distance (1 − cosine similarity), nearest first, ties by id. */
export function nearestRows(m: VectorMatrix, query: Float32Array, k: number): { id: number; distance: number }[] {
  if (m.rows === 0 || query.length !== m.dimension || k <= 0) return [];
  const inv = inverseNorm(query, 0, query.length);
  if (inv === 0) return [];
  // The query's non-zero dimensions, and their weights (unit length).
  let nz = 0;
  for (let i = 0; i < query.length; i++) if (query[i] !== 0) nz++;
  const dims = new Int32Array(nz);
  const weights = new Float64Array(nz);
  for (let i = 0, j = 0; i < query.length; i++)
    if (query[i] !== 0) {
      dims[j] = i;
      weights[j++] = query[i]! * inv;
    }
  const scratch = scratchOf(m);
  const sims = scratch.sims;
  if ("data" in m.layout) {
    const data = m.layout.data;
    if (data instanceof Int8Array) rowDotsInt8(data, m.dimension, m.rows, dims, weights, m.inverseNorms, sims);
    else rowDotsFloat(data, m.dimension, m.rows, dims, weights, m.inverseNorms, sims);
  } else {
    const c = m.layout.columns;
    if (c.values instanceof Int8Array)
      dotsInt8(c.starts, c.rows, c.values, m.rows, dims, weights, m.inverseNorms, sims);
    else dotsFloat(c.starts, c.rows, c.values, m.rows, dims, weights, m.inverseNorms, sims);
  }
  // The k-th best similarity bounds the rows worth sorting.
  const take = Math.min(k, m.rows);
  const bound = kthLargest(sims, take, scratch.copy);
  const best: number[] = [];
  for (let r = 0; r < m.rows; r++) if (sims[r]! >= bound) best.push(r);
  best.sort((a, b) => sims[b]! - sims[a]! || m.ids[a]! - m.ids[b]!);
  return best.slice(0, take).map((r) => ({ id: m.ids[r]!, distance: 1 - sims[r]! }));
}

/**
 * `sims[r]` = the cosine of row r with the query's weights on its `dims`: each dimension adds its weight times the
 * non-zero components of its column. A row's sum takes the same terms in the same order as a row-by-row loop over
 * `dims`, less the terms that are zero (adding zero changes no sum), so the figures are the same to the last bit.
 * One function per element type, so each loop stays monomorphic.
 */
function dotsInt8(
  starts: Int32Array,
  rows: Int32Array,
  values: Int8Array,
  n: number,
  dims: Int32Array,
  weights: Float64Array,
  inverseNorms: Float32Array,
  sims: Float64Array,
): void {
  sims.fill(0, 0, n);
  for (let j = 0; j < dims.length; j++) {
    const w = weights[j]!;
    const end = starts[dims[j]! + 1]!;
    for (let p = starts[dims[j]!]!; p < end; p++) sims[rows[p]!] = sims[rows[p]!]! + values[p]! * w;
  }
  for (let r = 0; r < n; r++) sims[r] = sims[r]! * inverseNorms[r]!;
}

/** As `dotsInt8`, for float32 rows. */
function dotsFloat(
  starts: Int32Array,
  rows: Int32Array,
  values: Float32Array,
  n: number,
  dims: Int32Array,
  weights: Float64Array,
  inverseNorms: Float32Array,
  sims: Float64Array,
): void {
  sims.fill(0, 0, n);
  for (let j = 0; j < dims.length; j++) {
    const w = weights[j]!;
    const end = starts[dims[j]! + 1]!;
    for (let p = starts[dims[j]!]!; p < end; p++) sims[rows[p]!] = sims[rows[p]!]! + values[p]! * w;
  }
  for (let r = 0; r < n; r++) sims[r] = sims[r]! * inverseNorms[r]!;
}

/** As `dotsInt8`, over rows kept whole (dense vectors): each row reads its components of the query's dimensions. */
function rowDotsInt8(
  data: Int8Array,
  dim: number,
  n: number,
  dims: Int32Array,
  weights: Float64Array,
  inverseNorms: Float32Array,
  sims: Float64Array,
): void {
  const nz = dims.length;
  for (let r = 0, off = 0; r < n; r++, off += dim) {
    let s = 0;
    for (let j = 0; j < nz; j++) s += data[off + dims[j]!]! * weights[j]!;
    sims[r] = s * inverseNorms[r]!;
  }
}

/** As `rowDotsInt8`, for float32 rows. */
function rowDotsFloat(
  data: Float32Array,
  dim: number,
  n: number,
  dims: Int32Array,
  weights: Float64Array,
  inverseNorms: Float32Array,
  sims: Float64Array,
): void {
  const nz = dims.length;
  for (let r = 0, off = 0; r < n; r++, off += dim) {
    let s = 0;
    for (let j = 0; j < nz; j++) s += data[off + dims[j]!]! * weights[j]!;
    sims[r] = s * inverseNorms[r]!;
  }
}

/**
 * Per matrix, the similarity array a query fills and the copy quickselect reorders: allocated once, not per query
 * (two arrays of every row, hundreds of kilobytes on a large store).
 */
const scratches = new WeakMap<VectorMatrix, { sims: Float64Array; copy: Float64Array }>();
function scratchOf(m: VectorMatrix): { sims: Float64Array; copy: Float64Array } {
  let s = scratches.get(m);
  if (!s) scratches.set(m, (s = { sims: new Float64Array(m.rows), copy: new Float64Array(m.rows) }));
  return s;
}

/** The k-th largest value (1-based) of `xs`, by quickselect on a copy (into `into`, of the same length). */
function kthLargest(xs: Float64Array, k: number, into: Float64Array): number {
  const a = into;
  a.set(xs);
  let lo = 0;
  let hi = a.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target]!;
}

/**
 * Chunks of the vec0 table (1,024 vectors each) read per loading step: 8 MiB of 256-dimension int8 vectors, copied as
 * they are, tens of milliseconds, so a request arriving meanwhile waits little, and a store of 43k vectors is in memory
 * after two steps (each step between two requests makes the requests that wait for the copy fewer). Counted in chunks,
 * not time, so a loaded machine still finishes in as many steps.
 */
const LOAD_CHUNKS = 32;

/** `v` as the store keeps it (int8, scaled to ±127), as floats: the query sqlite-vec compares int8 vectors with. */
function asQuantized(v: Float32Array): Float32Array {
  const b = quantizeVector(v);
  return Float32Array.from(new Int8Array(b.buffer, b.byteOffset, b.byteLength));
}

/**
 * A matrix being filled chunk by chunk: room for every vector item, rows added as the chunks are read. Its rows have
 * the width of the first chunk's vectors (1 byte, int8, or 4, float32 of older stores); a chunk of another width is
 * not understood.
 */
function matrixFiller(expected: number, dimension: number) {
  let cap = Math.max(1, expected);
  let ids = new Int32Array(cap);
  let inverseNorms = new Float32Array(cap);
  let data: Int8Array | Float32Array | undefined;
  let rows = 0;
  /** Room for `n` more rows (more vectors than the store counted: written meanwhile, a reload follows). */
  const room = (n: number, width: number) => {
    if (data && rows + n <= cap) return;
    const next = Math.max(cap, rows + n);
    const grown = width === 1 ? new Int8Array(dimension * next) : new Float32Array(dimension * next);
    if (data) grown.set(data.subarray(0, rows * dimension));
    data = grown;
    if (next > cap) {
      const moreIds = new Int32Array(next);
      moreIds.set(ids.subarray(0, rows));
      const moreNorms = new Float32Array(next);
      moreNorms.set(inverseNorms.subarray(0, rows));
      ids = moreIds;
      inverseNorms = moreNorms;
      cap = next;
    }
  };
  return {
    /**
     * Adds a chunk's valid slots; false when the chunk's layout is not understood. A slot is
     * `dimension` components of 1 byte (int8 vectors) or 4 (float32 vectors of older stores).
     */
    add(c: VectorChunk): boolean {
      if (dimension <= 0 || c.size <= 0 || c.rowids.byteLength < c.size * 8) return false;
      const width = c.vectors.byteLength / (c.size * dimension);
      if (width !== 1 && width !== 4) return false;
      if (data && data.BYTES_PER_ELEMENT !== width) return false;
      room(c.size, width);
      const dim = dimension;
      // Copied out: an SQLite blob's buffer need not be aligned for a Float32Array view.
      const bytes = c.vectors.buffer.slice(c.vectors.byteOffset, c.vectors.byteOffset + c.vectors.byteLength);
      const all = width === 1 ? new Int8Array(bytes) : new Float32Array(bytes);
      const to = data!;
      for (let i = 0; i < c.size; i++) {
        if (((c.validity[i >> 3] ?? 0) & (1 << (i & 7))) === 0) continue;
        // Rowids are item ids, far below 2^53: the low and high words make the number without a BigInt.
        const id = c.rowids.readUInt32LE(i * 8) + c.rowids.readInt32LE(i * 8 + 4) * 2 ** 32;
        const from = i * dim;
        const at = rows * dim;
        let norm = 0;
        for (let d = 0; d < dim; d++) {
          const x = all[from + d]!;
          norm += x * x;
          to[at + d] = x;
        }
        if (norm === 0) continue;
        inverseNorms[rows] = 1 / Math.sqrt(norm);
        ids[rows] = id;
        rows++;
      }
      return true;
    },
    /** The matrix of the rows added (`layOut`); the filler is not used after. */
    done: (): VectorMatrix => ({
      dimension,
      rows,
      layout: layOut((data ?? new Float32Array(0)).subarray(0, rows * dimension), dimension, rows),
      inverseNorms,
      ids,
      quantized: data instanceof Int8Array,
    }),
  };
}

/**
 * Nearest vectors of one store. The first use (or `warm`) starts reading the vectors into memory, a chunk of the
 * vec0 table at a time between other work; until the copy is complete, and after the vectors changed until it is read
 * again, queries go to sqlite-vec (same neighbours). Changed means a vector write on this connection, or another
 * connection's commit that wrote vectors (the store counts vector writes: a vector replaced in place changes neither the
 * embedded items' count nor their highest id).
 */
export function createNearestVectors(db: Db) {
  let matrix: VectorMatrix | undefined;
  let loading: object | undefined;
  /** The vec0 tables lack the chunk layout: queries always go to sqlite-vec. */
  let unreadable = false;
  let own = -1;
  let external = -1;
  let fingerprint = "";
  /** Callers waiting until no copy is being read (`settled`). */
  let waiting: (() => void)[] = [];
  const stopLoading = () => {
    loading = undefined;
    const w = waiting;
    waiting = [];
    for (const f of w) f();
  };

  const load = (now = false) => {
    const token = {};
    loading = token;
    const startOwn = vectorsVersion(db).own;
    const startPrint = vectorsFingerprint(db);
    let filler: ReturnType<typeof matrixFiller> | undefined;
    let after = 0;
    const step = () => {
      if (loading !== token) return;
      try {
        filler ??= matrixFiller(vectorSlots(db), getEmbedderBinding(db)?.dimension ?? 0);
        for (let n = 0; ; n++) {
          const page = vectorChunks(db, after, 1);
          if (!page || !page.every((c) => filler!.add(c))) {
            unreadable = true;
            stopLoading();
            return;
          }
          if (page.length === 0) break;
          after = page[page.length - 1]!.chunkId;
          if (n + 1 >= LOAD_CHUNKS) {
            // A timer, not an unref'd immediate: with nothing else pending, the event loop would wait in its poll for
            // the next input before running such an immediate, and the copy would grow one step per request.
            setTimeout(step, 0).unref();
            return;
          }
        }
        const now = vectorsVersion(db);
        // A write during the load leaves the copy unused; the next query starts another.
        if (now.own === startOwn && vectorsFingerprint(db) === startPrint) {
          matrix = filler.done();
          own = now.own;
          external = now.external;
          fingerprint = startPrint;
        }
        stopLoading();
      } catch {
        stopLoading(); // a closed store: queries keep going to sqlite-vec
      }
    };
    // A warm-up reads the first step at once (a server asks before its queries come); a query that asks for the copy
    // is answered by sqlite-vec and the reading starts after it, never inside it.
    if (now) step();
    else setTimeout(step, 0).unref();
  };

  /**
   * Whether a copy is worth reading: after a warm-up, or from the second query on. A store asked once (a hook's
   * process, a worker's call) answers from sqlite-vec and never reads the copy it would not use.
   */
  let wanted = false;
  /** The in-memory copy when it is current; otherwise undefined (and a load is under way when one is wanted). */
  const current = (): VectorMatrix | undefined => {
    if (unreadable) return undefined;
    if (!matrix) {
      if (!loading && wanted) load();
      return matrix;
    }
    const v = vectorsVersion(db);
    if (v.own === own && v.external === external) return matrix;
    if (v.own === own && vectorsFingerprint(db) === fingerprint) {
      external = v.external;
      return matrix;
    }
    matrix = undefined;
    if (!loading) load();
    return undefined;
  };

  let asked = 0;
  return {
    /** Starts reading the copy (a server's warm-up), so queries soon stop going to sqlite-vec. */
    warm: (): void => {
      wanted = true;
      if (!unreadable && !matrix && !loading) load(true);
      else current();
    },
    /** Resolves once no copy is being read (read, found unreadable, or never started). */
    settled: (): Promise<void> => (loading ? new Promise<void>((r) => waiting.push(r)) : Promise.resolve()),
    /** Whether queries are answered from the in-memory copy (read and current), rather than by sqlite-vec. */
    ready: (): boolean => current() !== undefined,
    /** The `k` nearest stored vectors to `query`, of owners of `ownerType` when given (filtered after the k). */
    nearest(query: Float32Array, k: number, ownerType?: string): Neighbour[] {
      if (++asked > 1) wanted = true;
      const m = current();
      if (!m) return nearestVectors(db, query, k, ownerType);
      const rows = nearestRows(m, m.quantized ? asQuantized(query) : query, k);
      const owners = vectorItemOwners(
        db,
        rows.map((r) => r.id),
      );
      const out: Neighbour[] = [];
      for (const r of rows) {
        const o = owners.get(r.id);
        if (o && (!ownerType || o.ownerType === ownerType)) out.push({ ...r, ...o });
      }
      return out;
    },
  };
}
export type NearestVectors = ReturnType<typeof createNearestVectors>;
