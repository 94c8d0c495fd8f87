// Real token counts (cl100k BPE via gpt-tokenizer), robust to special-token text and pathological long words.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

import type { countTokens as CountTokens } from "gpt-tokenizer/encoding/cl100k_base";

import { loadBpeTable } from "./bpe-table.js";

/** The compact tables the build writes beside the code (bpe-table.ts); absent when running from src/. */
export const BPE_TABLE_FILE = "cl100k.bin";

type Bpe = typeof CountTokens;
let bpe: ((text: string) => number) | undefined;

/** The build's compact tables beside this module, or undefined (then gpt-tokenizer's own tables load). */
function compactCount(): ((text: string) => number) | undefined {
  try {
    return loadBpeTable(readFileSync(new URL(`./${BPE_TABLE_FILE}`, import.meta.url)))?.count;
  } catch {
    return undefined;
  }
}

/**
 * The encoder loads on the first count, not at import: a process that never counts never pays for it. It reads the
 * compact tables the build wrote (one buffer, no table to build); without them, gpt-tokenizer's (about 100 ms).
 */
function bpeCount(text: string): number {
  if (!bpe) {
    const compact = compactCount();
    if (compact) bpe = compact;
    else {
      const count = (createRequire(import.meta.url)("gpt-tokenizer/cjs/encoding/cl100k_base") as { countTokens: Bpe })
        .countTokens;
      bpe = (t) => count(t, NO_SPECIAL);
    }
  }
  return bpe(text);
}

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
/** BPE is quadratic in a single unbroken word: long runs are counted in 256-character blocks. */
const LONG_RUN = /(\S{256})/;

/** Counts the tokens of `text` as a cl100k tokenizer would (special-token strings count as text). */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (const piece of text.split(LONG_RUN)) if (piece) n += bpeCount(piece);
  return n;
}
