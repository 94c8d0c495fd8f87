// Built-in offline embedder: signed feature hashing of identifier tokens and character trigrams, L2-normalized.
import { WORD, wordTokens } from "../text/identifiers.js";
import type { Embedder } from "./provider.js";

/** Dimension of the offline embedder's vectors. */
export const OFFLINE_DIMENSION = 256;
/** Bumped whenever the hashing scheme changes, so stored vectors are re-embedded rather than mixed. */
const SCHEME = "hash-v1";
/** Texts are cut to this many characters: the hashing is linear, but a 1 MB input should not stall a batch. */
const MAX_CHARS = 32_000;

/** FNV-1a 32-bit over a string's UTF-16 code units, continuing from state `h`. */
function fnv1a(s: string, h = 0x811c9dc5, start = 0, end = s.length): number {
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const SIGN_SEED = 0x9747b28c;
// Feature hashes continue from the hashed prefix ("w:" words, "g:" trigrams): the same values as hashing the
// concatenated string, without building it.
const W = [fnv1a("w:"), fnv1a("w:", SIGN_SEED)] as const;
const G = [fnv1a("g:"), fnv1a("g:", SIGN_SEED)] as const;

/** A token's features as (index, signed weight) pairs for one dimension. */
interface Features {
  idx: Uint16Array;
  w: Float32Array;
}

/** Features of a token: its word hash and, for tokens of 4+ characters, its padded character trigrams. */
function tokenFeatures(tok: string, dimension: number): Features {
  const n = 1 + (tok.length >= 4 ? tok.length : 0);
  const idx = new Uint16Array(n);
  const w = new Float32Array(n);
  idx[0] = fnv1a(tok, W[0]) % dimension;
  w[0] = (fnv1a(tok, W[1]) & 1) === 0 ? 1 : -1;
  if (tok.length >= 4) {
    const padded = `<${tok}>`;
    for (let i = 0; i + 3 <= padded.length; i++) {
      idx[i + 1] = fnv1a(padded, G[0], i, i + 3) % dimension;
      w[i + 1] = (fnv1a(padded, G[1], i, i + 3) & 1) === 0 ? 0.35 : -0.35;
    }
  }
  return { idx, w };
}

/** Identifiers repeat across a repository: their features are computed once (bounded). */
const featureCache = new Map<string, Features>();
const FEATURE_CACHE_MAX = 200_000;

/** Features of a word of the text: those of all its identifier tokens (whole form and parts), concatenated. */
function wordFeatures(word: string, dimension: number): Features {
  const key = dimension === OFFLINE_DIMENSION ? word : `${dimension}:${word}`;
  let f = featureCache.get(key);
  if (!f) {
    const parts = wordTokens(word).map((t) => tokenFeatures(t, dimension));
    if (parts.length === 1) f = parts[0]!;
    else {
      const n = parts.reduce((a, p) => a + p.idx.length, 0);
      f = { idx: new Uint16Array(n), w: new Float32Array(n) };
      let o = 0;
      for (const p of parts) {
        f.idx.set(p.idx, o);
        f.w.set(p.w, o);
        o += p.idx.length;
      }
    }
    if (featureCache.size >= FEATURE_CACHE_MAX) featureCache.clear();
    featureCache.set(key, f);
  }
  return f;
}

/** Embeds one text deterministically. Empty text gives the zero vector. */
export function offlineEmbed(text: string, dimension = OFFLINE_DIMENSION): Float32Array {
  const vec = new Float32Array(dimension);
  const src = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
  // Each identifier token adds its word hash and trigrams; the square root below keeps repeats sub-linear.
  for (const m of src.matchAll(WORD)) {
    const f = wordFeatures(m[0], dimension);
    for (let i = 0; i < f.idx.length; i++) {
      const j = f.idx[i]!;
      vec[j] = (vec[j] ?? 0) + f.w[i]!;
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
