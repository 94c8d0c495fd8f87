// Real token counts (cl100k BPE via gpt-tokenizer), robust to special-token text and pathological long words.
import { createRequire } from "node:module";

import type { countTokens as CountTokens } from "gpt-tokenizer/encoding/cl100k_base";

type Bpe = typeof CountTokens;
let bpe: Bpe | undefined;
/** The encoder's tables load on the first count, not at import: a process that never counts never pays for them. */
function bpeCount(...args: Parameters<Bpe>): number {
  bpe ??= (createRequire(import.meta.url)("gpt-tokenizer/cjs/encoding/cl100k_base") as { countTokens: Bpe })
    .countTokens;
  return bpe(...args);
}

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
/** BPE is quadratic in a single unbroken word: long runs are counted in 256-character blocks. */
const LONG_RUN = /(\S{256})/;

/** Counts the tokens of `text` as a cl100k tokenizer would (special-token strings count as text). */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (const piece of text.split(LONG_RUN)) if (piece) n += bpeCount(piece, NO_SPECIAL);
  return n;
}
