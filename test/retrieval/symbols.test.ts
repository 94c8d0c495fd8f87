// Which symbol is ranked first: the function or method whose own body the task concerns, before the type it
// belongs to; names alone when the file's lines are not available.
import { describe, expect, it } from "vitest";

import { bm25Tokens } from "../../src/retrieval/bm25.js";
import {
  LEARNED_SYMBOL_WEIGHTS,
  orderSymbols,
  type SymbolDef,
  symbolFeatures,
  type SymbolQuery,
  symbolScore,
} from "../../src/retrieval/symbols.js";

const sym = (qual: string, kind: string, startLine: number, endLine: number): SymbolDef => ({
  key: `sym:src/shape.rs#${qual}@${startLine}`,
  name: qual.split(".").pop()!,
  qual,
  kind,
  startLine,
  endLine,
});

const LINES = [
  "pub struct Shape {", // 1
  "    pub radius: f64,", // 2
  "}", // 3
  "impl Shape {", // 4
  "    pub fn area(&self) -> f64 {", // 5
  "        3.14 * self.radius * self.radius", // 6
  "    }", // 7
  "    pub fn describe(&self) -> String {", // 8
  '        format!("shape")', // 9
  "    }", // 10
  "}", // 11
];

const shape = sym("Shape", "struct", 1, 3);
const impl = sym("Shape", "impl", 4, 11);
const area = sym("Shape.area", "method", 5, 7);
const describeFn = sym("Shape.describe", "method", 8, 10);
const SYMS = [shape, impl, area, describeFn];

const query = (task: string, named: string[] = []): SymbolQuery => ({
  tokens: new Set(bm25Tokens(task)),
  named: new Set(named.map((n) => n.toLowerCase())),
});

/** The file's symbols ranked as the ranker ranks them (one file, at rank 0). */
function ranked(task: string, named: string[], lines?: readonly string[]) {
  const feats = symbolFeatures(SYMS, query(task, named), lines);
  return orderSymbols(
    SYMS.map((s, i) => ({
      id: `${s.qual}@${s.kind}`,
      s,
      f: feats[i]!,
      score: symbolScore(feats[i]!, 0, LEARNED_SYMBOL_WEIGHTS),
    })),
  );
}

describe("symbol ranking", () => {
  it("puts the method whose body uses the task's terms before the named struct", () => {
    const hits = ranked(
      "Shape reports the wrong area: the radius is squared with 3.14 instead of PI",
      ["Shape"],
      LINES,
    );
    expect(hits).toHaveLength(SYMS.length);
    expect(hits[0]!.s).toBe(area);
    expect(hits[0]!.f.body).toBe(1);
    const struct = hits.find((h) => h.s === shape)!;
    expect(struct.f.named).toBeGreaterThan(0);
    expect(struct.score).toBeLessThan(hits[0]!.score);
  });

  it("scores a container only on its own lines, not on the methods inside it", () => {
    const feats = symbolFeatures(SYMS, query("the radius squared is wrong"), LINES);
    const of = (s: SymbolDef) => feats[SYMS.indexOf(s)]!;
    expect(of(impl).body).toBe(0);
    expect(of(area).body).toBe(1);
    expect(of(shape).body).toBeGreaterThan(0); // the struct's own field names the radius
    expect(of(describeFn).body).toBe(0);
  });

  it("falls back to names when the lines are missing", () => {
    const hits = ranked("describe the shape", ["describe"]);
    expect(hits[0]!.s).toBe(describeFn);
    expect(hits.every((h) => h.f.body === 0)).toBe(true);
  });

  it("a symbol of a lower file scores less than the same evidence in a higher one", () => {
    const [f] = symbolFeatures([area], query("area"), LINES);
    expect(symbolScore(f!, 2, LEARNED_SYMBOL_WEIGHTS)).toBeLessThan(symbolScore(f!, 0, LEARNED_SYMBOL_WEIGHTS));
  });

  it("orders best first, ties by id, and keeps one entry per id", () => {
    const out = orderSymbols([
      { id: "b", score: 1 },
      { id: "a", score: 1 },
      { id: "c", score: 2 },
      { id: "a", score: 0.5 },
    ]);
    expect(out).toEqual([
      { id: "c", score: 2 },
      { id: "a", score: 1 },
      { id: "b", score: 1 },
    ]);
  });
});
