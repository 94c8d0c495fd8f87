// Built-in offline embedder: signed feature hashing of identifier tokens and character trigrams, L2-normalized.
import { identifierTokens } from "../text/identifiers.js";
import type { Embedder } from "./provider.js";

/** Dimension of the offline embedder's vectors. */
export const OFFLINE_DIMENSION = 256;
/** Bumped whenever the hashing scheme changes, so stored vectors are re-embedded rather than mixed. */
const SCHEME = "hash-v1";
/** Texts are cut to this many characters: the hashing is linear, but a 1 MB input should not stall a batch. */
const MAX_CHARS = 32_000;

/** FNV-1a 32-bit over a string's UTF-16 code units. */
function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function addFeature(vec: Float32Array, feature: string, weight: number): void {
  const h = fnv1a(feature);
  const idx = h % vec.length;
  const sign = (fnv1a(feature, 0x9747b28c) & 1) === 0 ? 1 : -1;
  vec[idx] = (vec[idx] ?? 0) + sign * weight;
}

/** Embeds one text deterministically. Empty text gives the zero vector. */
export function offlineEmbed(text: string, dimension = OFFLINE_DIMENSION): Float32Array {
  const vec = new Float32Array(dimension);
  const tokens = identifierTokens(text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text);
  for (const tok of tokens) {
    // Sub-linear term weight: repeated tokens count, but do not dominate.
    addFeature(vec, "w:" + tok, 1);
    if (tok.length >= 4) {
      const padded = `<${tok}>`;
      for (let i = 0; i + 3 <= padded.length; i++) addFeature(vec, "g:" + padded.slice(i, i + 3), 0.35);
    }
  }
  let norm = 0;
  for (let i = 0; i < vec.length; i++) {
    const v = vec[i] ?? 0;
    const s = Math.sign(v) * Math.sqrt(Math.abs(v));
    vec[i] = s;
    norm += s * s;
  }
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < vec.length; i++) vec[i] = (vec[i] ?? 0) * inv;
  }
  return vec;
}

/** Creates the built-in offline embedder. */
export function createOfflineEmbedder(dimension = OFFLINE_DIMENSION): Embedder {
  return {
    id: `offline:${SCHEME}:${dimension}`,
    dimension,
    mode: "offline",
    embed: (texts) => Promise.resolve(texts.map((t) => offlineEmbed(t, dimension))),
  };
}
