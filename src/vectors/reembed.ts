// Explicit switch of a database's embedder: rebind (drops old vectors), then embed every stored item again.
import type { Embedder } from "../embeddings/provider.js";
import type { Db } from "../storage/db.js";
import { bindEmbedder, getEmbedderBinding } from "../storage/meta.js";
import { markAllPending } from "../storage/vectors.js";
import { embedPending } from "./embed-pending.js";

export interface ReembedResult {
  from: string | undefined;
  to: string;
  items: number;
  ms: number;
}

/** Rebinds the database to `embedder` and re-embeds every item with it. */
export async function reembed(db: Db, embedder: Embedder): Promise<ReembedResult> {
  const started = Date.now();
  const from = getEmbedderBinding(db)?.id;
  bindEmbedder(db, { id: embedder.id, dimension: embedder.dimension });
  markAllPending(db);
  const items = await embedPending(db, embedder);
  return { from, to: embedder.id, items, ms: Date.now() - started };
}
