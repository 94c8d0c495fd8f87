// The compression model route's bounds: a failed or timed-out request leaves the deterministic summary.
import { describe, expect, it } from "vitest";

import { parseNarrative, replaceSections, runModelRoute } from "../../src/transcript/model-route.js";

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
    expect(md).toContain("## Current State\nB _(client model)_");
    expect(md).not.toContain("tests red");
    expect(parseNarrative("## Session Intent\nA\n## Next Steps\n- C")).toBeUndefined();
  });
});
