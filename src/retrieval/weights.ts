// The learned fusion: each channel's rank turned into w / (k + rank), times the file's share of the channel's
// top score where the fit chose it, summed; files in peripheral folders scaled down. The weights are fitted
// offline (`memcards eval fit-weights`), never set by hand.
import { z } from "zod";

/** Channels a file can be found by, in ladder order. `fts` is the index's capped-body BM25. */
export const CHANNELS = ["bm25", "fts", "anchors", "symbols", "vectors", "expansion"] as const;
export const Channel = z.enum(CHANNELS);
export type Channel = z.infer<typeof Channel>;

/**
 * One fitted fusion: a weight per channel, the channels whose contribution also scales with the file's share
 * of the channel's top score, RRF's k and the factor for files in peripheral folders.
 */
export const FusionWeights = z.strictObject({
  channels: z.strictObject({
    bm25: z.number().nonnegative(),
    fts: z.number().nonnegative(),
    anchors: z.number().nonnegative(),
    symbols: z.number().nonnegative(),
    vectors: z.number().nonnegative(),
    expansion: z.number().nonnegative(),
  }),
  scaled: z.array(Channel),
  peripheral: z.number().min(0).max(1),
  k: z.number().positive(),
});
export type FusionWeights = z.infer<typeof FusionWeights>;

/**
 * A file's share of its channel's top score, `score / top` held to [0, 1]: a score below zero (a vector
 * similarity can be) counts as no strength, never as a penalty, and a channel whose top score is not positive
 * carries no signal, so every share in it is 0. Also applied to shares read back from a dump (`top` 1).
 */
export function scoreShare(score: number, top = 1): number {
  if (!(top > 0)) return 0;
  const share = score / top;
  return share > 0 ? Math.min(1, share) : 0; // NaN falls to 0
}

/** What fusion needs of one candidate file: each channel's 1-based rank and share of the channel's top score. */
export interface CandidateSignals {
  ranks: Partial<Record<Channel, number>>;
  /** `scoreShare` of the file in the channel: how close to the channel's best hit the file comes. */
  shares: Partial<Record<Channel, number>>;
  peripheral: boolean;
}

/**
 * The fused score of one candidate under `w`, with only the channels in `use` counted:
 * Σ_c w_c · share_c / (k + rank_c), share_c = the file's `scoreShare` for the channels in `w.scaled` (1 when
 * not given), else 1. A share outside [0, 1] is held to it, so no channel ever lowers a file's score.
 */
export function fusedScore(c: CandidateSignals, w: FusionWeights, use: ReadonlySet<Channel>): number {
  let s = 0;
  for (const ch of CHANNELS) {
    const r = c.ranks[ch];
    const wc = w.channels[ch];
    if (r === undefined || wc <= 0 || !use.has(ch)) continue;
    const share = w.scaled.includes(ch) ? scoreShare(c.shares[ch] ?? 1) : 1;
    s += (wc * share) / (w.k + r);
  }
  return c.peripheral ? s * w.peripheral : s;
}

/**
 * The committed fusion, produced by
 * `memcards eval fit-weights --dump python-dev.jsonl multi-dev.jsonl` over dumps written by
 * `memcards eval localize --dump` (coordinate ascent on MRR@10 over all 131 development tasks; see
 * docs/benchmarks.md). One-hop expansion did not raise the cross-validated score and is left at 0; scaling
 * every channel by its score share did and is kept. Replace it only with that command's output.
 */
export const LEARNED_WEIGHTS: FusionWeights = {
  channels: { bm25: 1, fts: 1, anchors: 1.5, symbols: 0.5, vectors: 1, expansion: 0 },
  scaled: ["bm25", "fts", "anchors", "symbols", "vectors", "expansion"],
  peripheral: 0.25,
  k: 10,
};
