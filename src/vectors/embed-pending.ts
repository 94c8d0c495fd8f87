// Embeds queued vector items in batches, yielding between batches so a server stays responsive.
import type { Embedder } from "../embeddings/provider.js";
import type { Db } from "../storage/db.js";
import { pendingVectorItems, storeVectors } from "../storage/vectors.js";

export interface EmbedPendingOptions {
  batchSize?: number;
  projectId?: number;
  signal?: AbortSignal;
  onProgress?: (done: number) => void;
}

/** Embeds every pending item (or until aborted); returns how many were embedded. */
export async function embedPending(db: Db, embedder: Embedder, opts: EmbedPendingOptions = {}): Promise<number> {
  const batch = opts.batchSize ?? 64;
  let done = 0;
  for (;;) {
    if (opts.signal?.aborted) break;
    const items = pendingVectorItems(db, batch, opts.projectId);
    if (items.length === 0) break;
    const vectors = await embedder.embed(items.map((i) => i.text));
    storeVectors(
      db,
      items.map((item, k) => ({
        id: item.id,
        hash: item.hash,
        vector: vectors[k] ?? new Float32Array(embedder.dimension),
      })),
    );
    done += items.length;
    opts.onProgress?.(done);
    await new Promise((r) => setImmediate(r));
  }
  return done;
}
