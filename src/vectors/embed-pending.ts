// Embeds queued vector items in batches, yielding between batches so a server stays responsive. Computed vectors are
// written in groups: a write transaction per embedding batch made the commits, not the embedding, most of the cost.
import type { Embedder } from "../embeddings/provider.js";
import type { Db } from "../storage/db.js";
import { pendingVectorItems, storeVectors } from "../storage/vectors.js";

export interface EmbedPendingOptions {
  /** Texts per embedder call. */
  batchSize?: number;
  /** Vectors held before they are written in one transaction (fewer when embedding is slow: see `writeAfterMs`). */
  writeItems?: number;
  /** Held vectors are written once this long (ms) has passed since the last write, however few. */
  writeAfterMs?: number;
  projectId?: number;
  signal?: AbortSignal;
  onProgress?: (done: number) => void;
}

/** Texts per embedder call by default. */
const EMBED_BATCH = 64;
/** Vectors written per transaction at most by default. */
const WRITE_ITEMS = 1024;
/** Held vectors are written after this long by default, however few: a slow embedder's progress reaches the store
 * (and its readers) steadily, and a killed run loses at most this much work. */
const WRITE_AFTER_MS = 500;

/** Embeds every pending item (or until aborted); returns how many were embedded. */
export async function embedPending(db: Db, embedder: Embedder, opts: EmbedPendingOptions = {}): Promise<number> {
  const batch = opts.batchSize ?? EMBED_BATCH;
  const writeItems = opts.writeItems ?? WRITE_ITEMS;
  const writeAfterMs = opts.writeAfterMs ?? WRITE_AFTER_MS;
  let done = 0;
  let held: { id: number; hash: string; vector: Float32Array }[] = [];
  let lastWrite = performance.now();
  const write = () => {
    lastWrite = performance.now();
    if (held.length === 0) return;
    storeVectors(db, held);
    done += held.length;
    held = [];
    opts.onProgress?.(done);
  };
  try {
    // Items are read in id order after the last one embedded, so held (not yet written) items are not read again.
    // A pass that finds nothing more writes what it holds and starts over from the first id: an item queued again
    // meanwhile (its text changed, or its vector was dropped as stale) lies below the cursor. A pass from the first
    // id that finds nothing ends the run.
    let after = 0;
    for (;;) {
      if (opts.signal?.aborted) break;
      const items = pendingVectorItems(db, batch, opts.projectId, after);
      if (items.length === 0) {
        if (after === 0) break;
        write();
        after = 0;
        continue;
      }
      after = items[items.length - 1]!.id;
      const vectors = await embedder.embed(items.map((i) => i.text));
      items.forEach((item, k) =>
        held.push({ id: item.id, hash: item.hash, vector: vectors[k] ?? new Float32Array(embedder.dimension) }),
      );
      if (held.length >= writeItems || performance.now() - lastWrite >= writeAfterMs) write();
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    write();
  }
  return done;
}
