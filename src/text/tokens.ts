// Real token counts (cl100k BPE via gpt-tokenizer), robust to special-token text and pathological long words.
import { countTokens as bpeCount } from "gpt-tokenizer/encoding/cl100k_base";

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
