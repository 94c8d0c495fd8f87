// The sentence labels for standing rules (test/fixtures/summary/rule-sentences): every label settled, every
// disagreement given its reason, the strata weighted as the sampling record says, and Cohen's kappa as computed.
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { cohenKappa, readRuleLabels } from "../../bench/summary/rule-labels.js";
import { redact } from "../../src/text/redact.js";

const dir = join(import.meta.dirname, "..", "fixtures", "summary", "rule-sentences");

describe("the rule-sentence labels", () => {
  const labels = readRuleLabels(join(dir, "labels.jsonl"));

  it("settles every disagreement with a reason, and keeps the shared label where the two agree", () => {
    for (const l of labels) {
      if (l.l1 === l.l2) expect(l.label).toBe(l.l1);
      else expect(l.settled?.length ?? 0).toBeGreaterThan(10);
    }
    expect(new Set(labels.map((l) => l.id)).size).toBe(labels.length);
  });

  it("weighs the sampled sentences of each split by its others over its sampled, as recorded", () => {
    const record = JSON.parse(readFileSync(join(dir, "sampling.json"), "utf8")) as {
      other_weight: Record<string, number>;
      listed: number;
    };
    expect(labels.length).toBe(record.listed);
    for (const l of labels) expect(l.weight).toBe(l.stratum === "rule-like" ? 1 : record.other_weight[l.split]);
  });

  it("holds no secret a person pasted (tokens and keys are redacted as the product redacts them)", () => {
    for (const l of labels) expect(redact(l.sentence), l.id).toBe(l.sentence);
  });

  it("computes Cohen's kappa: 1 for full agreement, 0 for agreement no better than chance", () => {
    expect(cohenKappa(["a", "b", "a"], ["a", "b", "a"])).toBe(1);
    expect(cohenKappa(["a", "a", "b", "b"], ["a", "b", "a", "b"])).toBe(0);
  });
});
