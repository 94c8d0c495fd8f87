// The embedder interface: the one place where an engine is really swapped (a model or the offline hasher).
import type { EmbedderMode } from "../vocab.js";

/** Something that turns texts into L2-normalized vectors of a fixed dimension. */
export interface Embedder {
  /** Stable id recorded in the database, e.g. `offline:hash-v1:384` or `transformers:Xenova/all-MiniLM-L6-v2`. */
  readonly id: string;
  readonly dimension: number;
  readonly mode: EmbedderMode;
  /** Embeds a batch; each result has `dimension` entries and unit length (or is all zeros for empty text). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Releases native resources, if any. */
  close?(): Promise<void>;
}
