// The tokenizer's compact tables count exactly as gpt-tokenizer does: on the repository's own source and docs, on
// seeded random text mixing scripts, emoji, lone surrogates, byte order marks and special-token
// strings, and in the build, where a process counting tokens reads them instead of loading gpt-tokenizer's tables.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

import { beforeAll, describe, expect, it } from "vitest";

import { type BpeTable, buildBpeTable, loadBpeTable } from "../../src/text/bpe-table.js";
import { BPE_TABLE_FILE } from "../../src/text/tokens.js";
import { repoRoot } from "../helpers/cli.js";

const require = createRequire(import.meta.url);
const reference = (
  require("gpt-tokenizer/cjs/encoding/cl100k_base") as {
    countTokens: (t: string, o: { disallowedSpecial: Set<string> }) => number;
  }
).countTokens;
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
const expected = (t: string) => reference(t, NO_SPECIAL);

/** Every file under `dir` below `maxBytes`, as UTF-8 text (binary files decode to replacement characters). */
function texts(dir: string, maxBytes = 200_000): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory() && !e.name.startsWith(".") && e.name !== "node_modules") walk(p);
      else if (e.isFile() && statSync(p).size <= maxBytes) out.push(readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
}

/** Seeded random text: code points drawn from ranges where tokenizers differ most. */
function randomText(seed: number, length: number): string {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  const pools: (() => string)[] = [
    () => String.fromCharCode(32 + Math.floor(next() * 95)),
    () => " \n\t\r"[Math.floor(next() * 4)]!,
    () => String.fromCodePoint(0xa0 + Math.floor(next() * 0x2f60)),
    () => String.fromCodePoint(0x3040 + Math.floor(next() * 0x6000)),
    () => String.fromCodePoint(0x1f300 + Math.floor(next() * 0x300)),
    () => String.fromCharCode(0xd800 + Math.floor(next() * 0x800)),
    () => "\uFEFF",
    () => ["<|endoftext|>", "<|im_start|>", "'ll", "'S", "123456", "\u00a0\u2028"][Math.floor(next() * 6)]!,
  ];
  let s = "";
  while (s.length < length) s += pools[Math.floor(next() * pools.length)]!();
  return s;
}

let table: BpeTable;
beforeAll(() => {
  const ranks = require("gpt-tokenizer/cjs/bpeRanks/cl100k_base") as { default: (string | number[])[] };
  const { CL100K_TOKEN_SPLIT_REGEX } = require("gpt-tokenizer/cjs/encodingParams/constants") as {
    CL100K_TOKEN_SPLIT_REGEX: RegExp;
  };
  table = loadBpeTable(buildBpeTable(ranks.default, CL100K_TOKEN_SPLIT_REGEX.source))!;
});

describe("the compact tokenizer tables", () => {
  it("count the repository's source and docs (images included, as text) as gpt-tokenizer does", () => {
    const all = [...texts(join(repoRoot, "src")), ...texts(join(repoRoot, "docs"))];
    expect(all.length).toBeGreaterThan(100);
    const wrong = all.filter((t) => table.count(t) !== expected(t));
    expect(wrong.length).toBe(0);
  });

  it("count seeded random text (scripts, emoji, lone surrogates, byte order marks, special tokens) the same", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const t = randomText(seed, 20 + (seed % 7) * 40);
      expect(table.count(t), JSON.stringify(t)).toBe(expected(t));
    }
    for (const t of ["", "\uFEFF", "\uFEFFA", "x\uFEFFyz \uFEFF\uFEFFab", "\uD800", "a\uDC00b", "  \n\n  "])
      expect(table.count(t), JSON.stringify(t)).toBe(expected(t));
  });

  it("refuse a buffer that is not a table", () => {
    expect(loadBpeTable(Buffer.from("not a table at all"))).toBeUndefined();
    expect(loadBpeTable(Buffer.alloc(0))).toBeUndefined();
  });

  it("are written by the build beside the code, and a built process counts with them alone", () => {
    const built = join(repoRoot, "dist", "src", "text", "tokens.js");
    expect(existsSync(join(repoRoot, "dist", "chunks", BPE_TABLE_FILE))).toBe(true);
    const script = `
      import { createRequire } from "node:module";
      const { countTokens } = await import(${JSON.stringify(built)});
      const n = countTokens(process.argv[1]);
      const loaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes("gpt-tokenizer"));
      console.log(JSON.stringify({ n, loaded }));`;
    const text = "The tokenizer's tables: 日本語, emoji 😀, \uFEFF and <|endoftext|>.\n\tdef f(x): return x ** 2\n";
    const out = JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", script, text], { encoding: "utf8" }),
    ) as { n: number; loaded: boolean };
    expect(out).toEqual({ n: expected(text), loaded: false });
  });
});
