// `memcards eval segment`: the labelled set loads strictly, and the segmenter keeps its COMMITMENT recall on it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

import { evalSegment, loadLabelled, renderSegmentEval } from "../../bench/segment.js";
import { tmpDir } from "../helpers/tmp.js";

const SET = fileURLToPath(new URL("../fixtures/segment/turns.jsonl", import.meta.url));
const SECOND = fileURLToPath(new URL("../fixtures/segment/second.jsonl", import.meta.url));

describe("eval segment", () => {
  it("reads the committed set: at least 200 real turns, quotes inside their text", () => {
    const turns = loadLabelled(SET);
    expect(turns.length).toBeGreaterThanOrEqual(200);
    expect(new Set(turns.map((t) => t.source)).size).toBeGreaterThanOrEqual(10);
    expect(turns.filter((t) => t.labels.includes("COMMITMENT")).length).toBeGreaterThan(40);
  });

  it("keeps COMMITMENT recall at 0.9 or more on the labelled turns", () => {
    const r = evalSegment(SET, SECOND);
    const c = r.by_category.find((x) => x.category === "COMMITMENT")!;
    expect(c.recall).toBeGreaterThanOrEqual(0.9);
    expect(r.commitment_spans.recall).toBeGreaterThanOrEqual(0.9);
    expect(r.agreement?.turns).toBeGreaterThanOrEqual(50);
    expect(r.halves.map((h) => h.half)).toEqual(["tuned", "held-out"]);
    expect(renderSegmentEval(r)).toMatch(/\| COMMITMENT \| \d+ \| \d+ \| 0\.\d\d \| 0\.9\d \|/);
  });

  it("names the line and field of a bad entry", () => {
    const dir = tmpDir();
    const bad = join(dir, "bad.jsonl");
    const base = { source: "s", turn: "t1", role: "user", text: "add a flag", commitments: [], labeller: "A" };
    writeFileSync(
      bad,
      `${JSON.stringify({ ...base, labels: ["COMMITMENT"] })}\n${JSON.stringify({ ...base, labels: ["PROMISE"] })}\n`,
    );
    expect(() => loadLabelled(bad)).toThrow(/bad\.jsonl:2: labels\.0:/);
    writeFileSync(bad, `${JSON.stringify({ ...base, labels: ["COMMITMENT"], commitments: ["remove the flag"] })}\n`);
    expect(() => loadLabelled(bad)).toThrow(/bad\.jsonl:1: commitment quote is not in the text: remove the flag/);
    expect(() => loadLabelled(join(dir, "none.jsonl"))).toThrow(/no labelled set at/);
  });
});
