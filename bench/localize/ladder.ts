// The ablation ladder: each rung adds one of the channels retrieval exports, ending with memcards' ranking.
import { z } from "zod";

import { ALL_CHANNELS, type ChannelSet, type RankedFile, type Ranker } from "../../src/retrieval/rank.js";

export const Rung = z.enum(["bm25", "+anchors", "+symbols", "+vectors", "+expansion", "memcards"]);
export type Rung = z.infer<typeof Rung>;
export const RUNGS = Rung.options;

const NONE: ChannelSet = { anchors: false, symbols: false, vectors: false, expansion: false, path_prior: false };

/** The channels each rung fuses: every rung keeps the ones before it. */
export const RUNG_CHANNELS: Record<Rung, ChannelSet> = {
  bm25: NONE,
  "+anchors": { ...NONE, anchors: true, path_prior: true },
  "+symbols": { ...NONE, anchors: true, path_prior: true, symbols: true },
  "+vectors": { ...NONE, anchors: true, path_prior: true, symbols: true, vectors: true },
  "+expansion": ALL_CHANNELS,
  memcards: ALL_CHANNELS,
};

/** Ranks files for a query with the channels of one rung. */
export function rankAtRung(ranker: Ranker, query: string, rung: Rung, limit?: number): Promise<RankedFile[]> {
  return ranker.rankWith(query, RUNG_CHANNELS[rung], limit);
}
