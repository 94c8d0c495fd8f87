// The cl100k tokenizer's tables in a compact precomputed form: one file the build writes (dist/chunks/cl100k.bin)
// holding the split pattern and every token's bytes and rank in an open-addressing hash table, so a process that
// counts a few texts reads one buffer instead of compiling the tokenizer's 1.1 MB rank list and building a map of
// its 100k strings (about 100 ms of CPU, most of a short hook's work). Counting is byte-pair merging as gpt-tokenizer
// does it (lowest rank first, leftmost among equals), with its lookups' quirks kept, so the counts are the same.

/** The table file's first four bytes. */
const MAGIC = 0x31455042; // "BPE1", little-endian
/** Header: magic, slot count, token count, pattern byte length, token byte length (u32 each). */
const HEADER_WORDS = 5;
/** FNV-1a over bytes, 32-bit. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Slots per token at least: a sparse table keeps probe runs short. */
const LOAD = 2;
/** A surrogate code unit not part of a pair (in `u` mode a pair is one code point, not a surrogate). */
const LONE_SURROGATE = /\p{Cs}/u;

/** A loaded table: lookups by byte range, the split pattern, and counting. */
export interface BpeTable {
  /** The rank of `bytes[start, end)` as a merge finds it, or -1 when it finds none. */
  rank(bytes: Uint8Array, start: number, end: number): number;
  /** The tokens `text` counts as, special-token strings counted as text. */
  count(text: string): number;
}

/** Whether bytes are well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** UTF-8's byte order mark, which gpt-tokenizer's decoder drops from the front of the bytes it looks up. */
const BOM = [0xef, 0xbb, 0xbf] as const;

function fnv(bytes: Uint8Array, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, FNV_PRIME);
  return h >>> 0;
}

/**
 * The table file for `ranks` (index = rank; a string token as its text, another as its bytes; holes skipped) and
 * the tokenizer's split pattern (its source; flags "gu").
 */
export function buildBpeTable(ranks: readonly (string | readonly number[] | undefined)[], pattern: string): Buffer {
  const enc = new TextEncoder();
  const tokens: { bytes: Uint8Array; rank: number }[] = [];
  ranks.forEach((t, rank) => {
    if (t === undefined) return;
    // gpt-tokenizer finds a token by its text when its bytes are text, and by its bytes only when they are not: a
    // token kept as bytes that are text (or as text with a lone surrogate) is never found, so it is left out here.
    if (typeof t === "string" ? LONE_SURROGATE.test(t) : isUtf8(Uint8Array.from(t))) return;
    tokens.push({ bytes: typeof t === "string" ? enc.encode(t) : Uint8Array.from(t), rank });
  });
  let slots = 1;
  while (slots < tokens.length * LOAD) slots *= 2;
  const pat = enc.encode(pattern);
  const byteLen = tokens.reduce((n, t) => n + t.bytes.length, 0);
  const words = HEADER_WORDS + slots + (tokens.length + 1) + tokens.length;
  const out = Buffer.alloc(words * 4 + pat.length + byteLen);
  const u32 = new Uint32Array(out.buffer, out.byteOffset, words);
  u32.set([MAGIC, slots, tokens.length, pat.length, byteLen]);
  const slotAt = HEADER_WORDS;
  const offAt = slotAt + slots;
  const rankAt = offAt + tokens.length + 1;
  const bytesAt = words * 4 + pat.length;
  out.set(pat, words * 4);
  let off = 0;
  tokens.forEach((t, i) => {
    u32[offAt + i] = off;
    u32[rankAt + i] = t.rank;
    out.set(t.bytes, bytesAt + off);
    off += t.bytes.length;
    let s = fnv(t.bytes, 0, t.bytes.length) & (slots - 1);
    while (u32[slotAt + s] !== 0) s = (s + 1) & (slots - 1);
    u32[slotAt + s] = i + 1;
  });
  u32[offAt + tokens.length] = off;
  return out;
}

/** Reads a table file's buffer; undefined when it is not one. */
export function loadBpeTable(buf: Buffer): BpeTable | undefined {
  if (buf.byteLength < HEADER_WORDS * 4 || buf.byteOffset % 4 !== 0) return undefined;
  const head = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_WORDS);
  const [magic, slots, n, patLen, byteLen] = head as unknown as [number, number, number, number, number];
  const words = HEADER_WORDS + slots + (n + 1) + n;
  if (magic !== MAGIC || buf.byteLength !== words * 4 + patLen + byteLen) return undefined;
  const u32 = new Uint32Array(buf.buffer, buf.byteOffset, words);
  const mask = slots - 1;
  const offAt = HEADER_WORDS + slots;
  const rankAt = offAt + n + 1;
  const split = new RegExp(buf.toString("utf8", words * 4, words * 4 + patLen), "gu");
  const data = new Uint8Array(buf.buffer, buf.byteOffset + words * 4 + patLen, byteLen);

  const exact = (bytes: Uint8Array, start: number, end: number): number => {
    const len = end - start;
    for (let s = fnv(bytes, start, end) & mask; ; s = (s + 1) & mask) {
      const e = u32[HEADER_WORDS + s]!;
      if (e === 0) return -1;
      const a = u32[offAt + e - 1]!;
      if (u32[offAt + e]! - a !== len) continue;
      let i = 0;
      while (i < len && data[a + i] === bytes[start + i]) i++;
      if (i === len) return u32[rankAt + e - 1]!;
    }
  };

  // A merge looks bytes up as gpt-tokenizer does: bytes that are text and start with a byte order mark are looked
  // up without it (its decoder drops the mark).
  const rank = (bytes: Uint8Array, start: number, end: number): number =>
    end - start >= BOM.length &&
    bytes[start] === BOM[0] &&
    bytes[start + 1] === BOM[1] &&
    bytes[start + 2] === BOM[2] &&
    isUtf8(bytes.subarray(start, end))
      ? end - start === BOM.length
        ? -1
        : exact(bytes, start + BOM.length, end)
      : exact(bytes, start, end);

  /** Parts one piece merges into, by lowest-rank pair first (leftmost among equals), as gpt-tokenizer merges. */
  const mergedParts = (piece: Uint8Array): number => {
    const starts: number[] = [];
    const ranks: number[] = [];
    const pairRank = (i: number): number => {
      const end = starts[i + 2];
      if (end === undefined) return Infinity;
      const r = rank(piece, starts[i]!, end);
      return r < 0 ? Infinity : r;
    };
    for (let i = 0; i <= piece.length; i++) {
      starts.push(i);
      const r = i < piece.length - 1 ? rank(piece, i, i + 2) : -1;
      ranks.push(r < 0 ? Infinity : r);
    }
    while (starts.length > 1) {
      let low = Infinity;
      let at = -1;
      for (let i = 0; i < ranks.length - 1; i++)
        if (ranks[i]! < low) {
          low = ranks[i]!;
          at = i;
        }
      if (at < 0) break;
      starts.splice(at + 1, 1);
      ranks.splice(at, 1);
      ranks[at] = pairRank(at);
      if (at > 0) ranks[at - 1] = pairRank(at - 1);
    }
    return starts.length - 1;
  };

  // A piece's bytes go to one reused buffer: ASCII written here, the rest by encodeInto (a TextEncoder.encode per
  // piece, a new array each, cost more than the whole merge).
  const enc = new TextEncoder();
  let scratch = new Uint8Array(1024);
  /** Writes `piece` as UTF-8 at the front of `scratch`; its byte length, or -1 for text with a lone surrogate. */
  const utf8 = (piece: string): number => {
    const n = piece.length;
    if (scratch.length < n * 3) scratch = new Uint8Array(n * 3);
    let i = 0;
    for (; i < n; i++) {
      const c = piece.charCodeAt(i);
      if (c >= 0x80) break;
      scratch[i] = c;
    }
    if (i === n) return n;
    return LONE_SURROGATE.test(piece) ? -1 : enc.encodeInto(piece, scratch).written;
  };
  const count = (text: string): number => {
    let total = 0;
    split.lastIndex = 0;
    for (const [piece] of text.matchAll(split)) {
      const len = utf8(piece);
      // A whole piece that is a token counts one; one with a lone surrogate never is (the tokenizer's keys are
      // well-formed text), though its encoded bytes may be.
      if (len >= 0 && exact(scratch, 0, len) >= 0) total++;
      else total += mergedParts(len >= 0 ? scratch.subarray(0, len) : enc.encode(piece));
    }
    return total;
  };
  return { rank, count };
}
