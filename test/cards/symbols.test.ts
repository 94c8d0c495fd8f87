// Which symbol a card names: the function or method whose own body the task concerns, before the type it
// belongs to; names alone when the file's lines are not available.
import { describe, expect, it } from "vitest";

import { rankSymbols } from "../../src/cards/candidates.js";
import type { NodeRow } from "../../src/storage/graph/nodes.js";

let nextId = 1;
function sym(name: string, kind: string, start: number, end: number): NodeRow {
  const id = nextId++;
  return {
    id,
    key: `sym:src/shape.rs#${name}@${start}`,
    type: "symbol",
    file_id: 1,
    path: "src/shape.rs",
    name,
    kind,
    start_line: start,
    end_line: end,
    summary: null,
    tokens: 20,
    content_hash: null,
    source: "tree-sitter",
    confidence: 1,
    meta: null,
  };
}

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
const terms = (s: string) => new Set(s.toLowerCase().match(/[a-z]{3,}/g) ?? []);

describe("rankSymbols", () => {
  const shape = sym("Shape", "struct", 1, 3);
  const impl = sym("Shape", "impl", 4, 11);
  const area = sym("area", "method", 5, 7);
  const describeFn = sym("describe", "method", 8, 10);
  const syms = [shape, impl, area, describeFn];

  it("puts the method whose body uses the task's terms before the named struct", () => {
    const task = "Shape reports the wrong area: the radius is squared with 3.14 instead of PI";
    const hits = rankSymbols(syms, terms(task), new Set(["Shape"]), LINES);
    expect(hits[0]!.s.name).toBe("area");
    expect(hits[0]!.share).toBe(1);
    const struct = hits.find((h) => h.s === shape)!;
    expect(struct.share).toBeLessThan(0.8);
    expect(hits.find((h) => h.s === describeFn)).toBeUndefined();
  });

  it("scores a container only on its own lines, not on the methods inside it", () => {
    const task = "the radius squared is wrong";
    const hits = rankSymbols(syms, terms(task), new Set(), LINES);
    expect(hits.map((h) => h.s)).toContain(area);
    expect(hits.map((h) => h.s)).not.toContain(impl);
  });

  it("falls back to names when the lines are missing", () => {
    const hits = rankSymbols(syms, terms("describe the shape"), new Set(["describe"]), undefined);
    expect(hits[0]!.s).toBe(describeFn);
    expect(hits.map((h) => h.s)).not.toContain(area);
  });
});
