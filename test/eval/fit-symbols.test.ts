// `eval fit-symbols`: the symbol ranking's constants searched on dumped features, with figures per held-out repository.
// (That the committed dump reproduces LEARNED_SYMBOL_WEIGHTS is test/eval/committed-fits.test.ts.)
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { fitSymbolReport, loadSymbolDump, renderSymbolFit } from "../../bench/localize/fit-symbols.js";
import { AppError } from "../../src/errors.js";
import { tmpDir } from "../helpers/tmp.js";

const cand = (
  id: string,
  over: { name?: number; body?: number; file?: number; gold?: boolean; container?: boolean },
) => ({
  id,
  file: over.file ?? 0,
  name: over.name ?? 0,
  named: 0,
  body: over.body ?? 0,
  container: over.container ?? false,
  span: 10,
  gold: over.gold ?? false,
});

/** In every task the gold method has the file's best body, while a decoy's name matches the task better. */
function task(id: string, repo: string) {
  return {
    id,
    repo,
    candidates: [],
    symbols: [
      cand("a.py::Decoy", { name: 3, body: 0.1, container: true }),
      cand("a.py::helper", { name: 2, body: 0.2 }),
      cand("a.py::Fix.method", { name: 1, body: 1, gold: true }),
      cand("b.py::far", { name: 9, body: 1, file: 6 }),
    ],
  };
}

describe("fit-symbols", () => {
  it("fits a weight on the body when the body decides, and scores every repository held out", () => {
    const file = join(tmpDir(), "dump.jsonl");
    const lines = [task("t1", "o/a"), task("t2", "o/b"), task("t3", "o/c"), { id: "t4", repo: "o/c", candidates: [] }];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const dumped = loadSymbolDump(file);
    expect(dumped.map((t) => t.id)).toEqual(["t1", "t2", "t3"]);
    const r = fitSymbolReport(dumped);
    expect(r.repos).toEqual(["o/a", "o/b", "o/c"]);
    expect(r.in_sample.weights.body).toBeGreaterThan(0);
    expect(r.in_sample.weights.files).toBeLessThanOrEqual(5); // the far file's symbol outscores the gold one
    expect(r.in_sample.scores["sym_acc@1"]).toBe(1);
    expect(r.loro.scores["sym_acc@1"]).toBe(1);
    expect(r.loro.folds.map((f) => f.repo)).toEqual(r.repos);
    expect(renderSymbolFit(r)).toContain("leave-one-repository-out: sym_acc@1 1.000");
  });

  it("refuses a dump without symbols and a line that is not JSON", () => {
    const dir = tmpDir();
    writeFileSync(join(dir, "none.jsonl"), JSON.stringify({ id: "x", repo: "o/a", candidates: [] }) + "\n");
    expect(() => fitSymbolReport(loadSymbolDump(join(dir, "none.jsonl")))).toThrow(AppError);
    writeFileSync(join(dir, "bad.jsonl"), "{nope\n");
    expect(() => loadSymbolDump(join(dir, "bad.jsonl"))).toThrow(/bad\.jsonl:1 is not JSON/);
  });
});
