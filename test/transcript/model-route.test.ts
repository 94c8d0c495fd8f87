// The compression model route's bounds: a failed or timed-out request leaves the deterministic summary.
import { describe, expect, it } from "vitest";

import { countTokens } from "../../src/text/tokens.js";
import { parseNarrative, replaceSections, runModelRoute } from "../../src/transcript/compression/model-route.js";

const SUMMARY = [
  "## Session Intent",
  "- fix the parser",
  "## Files Modified",
  "- `src/parse.ts` — edited",
  "## Current State",
  "- tests red",
  "## Next Steps",
  "- run `npm test`",
].join("\n");

describe("compression model route", () => {
  it("falls back with the reason when the client's model fails", async () => {
    const r = await runModelRoute(() => Promise.reject(new Error("Request timed out")), SUMMARY, [], []);
    expect(r.markdown).toBe(SUMMARY);
    expect(r.route).toMatchObject({ route: "deterministic", reason: expect.stringContaining("Request timed out") });
  });

  it("replaces only the narrative sections' bodies", () => {
    const bodies = parseNarrative("## Session Intent\nA\n\n## Current State\nB\n## Next Steps\n- C");
    expect(bodies).toEqual({ intent: "A", state: "B", next: "- C" });
    const md = replaceSections(SUMMARY, bodies!);
    expect(md).toContain("## Files Modified\n- `src/parse.ts` — edited");
    expect(md).toContain("## Current State\nB\n\n_(client model)_");
    expect(md).not.toContain("tests red");
    expect(parseNarrative("## Session Intent\nA\n## Next Steps\n- C")).toBeUndefined();
  });

  it("refuses a rewrite that drops a fact even when it gains another, or carries code blocks", async () => {
    const probes = [
      { type: "artifact" as const, expect: ["src/parse.ts"], turn: "t1", fact: "- src/parse.ts" },
      { type: "next" as const, expect: ["use sqlite"], turn: "t2", fact: "- use sqlite" },
    ];
    const summary = SUMMARY.replace("- run `npm test`", "- run `npm test` on src/parse.ts");
    const swap = await runModelRoute(
      () => Promise.resolve("## Session Intent\nA\n## Current State\nB\n## Next Steps\n- use sqlite"),
      summary,
      [],
      probes,
    );
    // The ledger line still names src/parse.ts, so nothing is lost here: the rewrite is kept.
    expect(swap.route.route).toBe("model");
    const lossy = await runModelRoute(
      () => Promise.resolve("## Session Intent\nA\n## Current State\nB\n## Next Steps\n- use sqlite"),
      "## Session Intent\n- x\n## Current State\n- y\n## Next Steps\n- edit src/parse.ts",
      [],
      probes,
    );
    expect(lossy.route).toMatchObject({
      route: "deterministic",
      reason: "the rewrite lost 1 fact the summary held",
    });
    const fenced = await runModelRoute(
      () => Promise.resolve("## Session Intent\nA\n## Current State\nB\n## Next Steps\n- run:\n```\nnpm test\n```"),
      SUMMARY,
      [],
      [],
    );
    expect(fenced.route).toMatchObject({ route: "deterministic", reason: "the rewrite contained code blocks" });
    const wrapped = await runModelRoute(
      () => Promise.resolve("```markdown\n## Session Intent\nA\n## Current State\nB\n## Next Steps\n- C\n```"),
      SUMMARY,
      [],
      [],
    );
    expect(wrapped.route.route).toBe("model");
    expect(wrapped.markdown).not.toContain("```");
  });

  it("refuses a rewrite longer than the budget, even one within its growth allowance", async () => {
    const answer = () =>
      Promise.resolve(
        "## Session Intent\nFix the parser's handling of quoted keys in nested tables.\n## Current State\nTests are red on two cases.\n## Next Steps\n- run `npm test`",
      );
    const bounded = await runModelRoute(answer, SUMMARY, [], [], countTokens(SUMMARY));
    expect(bounded.route).toMatchObject({ route: "deterministic", reason: "the rewrite was too long for the budget" });
    expect((await runModelRoute(answer, SUMMARY, [], [])).route.route).toBe("model");
  });
});
