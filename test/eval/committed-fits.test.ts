// The committed fits are what their procedures give on the committed development dumps: the fusion weights
// (`eval fit-weights`) and the symbol ranking's constants (`eval fit-symbols`). Each refits from scratch, CPU-bound
// work of minutes on a busy machine, so this file runs in the integration tier.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

import { fitReport, loadDump } from "../../bench/localize/fit.js";
import { fitSymbolWeights, loadSymbolDump } from "../../bench/localize/fit-symbols.js";
import { LEARNED_SYMBOL_WEIGHTS } from "../../src/retrieval/symbols.js";
import { LEARNED_WEIGHTS } from "../../src/retrieval/weights.js";

const DUMPS = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench", "localize", "dumps");

/** A hang guard, not a speed limit: a refit takes seconds alone and a few minutes on a loaded 2-core machine. */
const FIT_TIMEOUT_MS = 900_000;

describe("LEARNED_WEIGHTS", () => {
  it(
    "is what `eval fit-weights` selects and fits on the committed development dumps",
    () => {
      const dev = [...loadDump(join(DUMPS, "python-dev.jsonl.gz")), ...loadDump(join(DUMPS, "multi-dev.jsonl.gz"))];
      expect(dev).toHaveLength(131);
      expect(new Set(dev.map((t) => t.set))).toEqual(new Set(["python-dev", "multi-dev"]));
      // The whole procedure: every rung and term cross-validated, kept or dropped by its own rule.
      const report = fitReport(dev, []);
      expect(report.rungs.map((r) => [r.rung, r.kept])).toEqual([
        ["bm25", true],
        ["+anchors", true],
        ["+symbols", true],
        ["+vectors", true],
        ["+expansion", false],
        ["+score shares", true],
      ]);
      expect(report.weights).toEqual(LEARNED_WEIGHTS);
    },
    FIT_TIMEOUT_MS,
  );
});

describe("LEARNED_SYMBOL_WEIGHTS", () => {
  it(
    "is what the fit on the committed Python development dump gives",
    () => {
      const tasks = loadSymbolDump(join(DUMPS, "python-dev-symbols.jsonl.gz"));
      expect(tasks).toHaveLength(58);
      expect(fitSymbolWeights(tasks)).toEqual(LEARNED_SYMBOL_WEIGHTS);
    },
    FIT_TIMEOUT_MS,
  );
});
