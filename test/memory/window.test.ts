// The best window of a long turn for a query.
import { describe, expect, it } from "vitest";

import { bestWindow } from "../../src/memory/window.js";

describe("bestWindow", () => {
  it("returns a short text whole", () => {
    expect(bestWindow("one line", ["line"], 100)).toBe("one line");
  });
  it("finds the lines holding the most query terms, within the width", () => {
    const text = [
      ...Array(200).fill("noise here"),
      "the retry budget is 3",
      "in src/net/retry.ts",
      ...Array(200).fill("tail"),
    ].join("\n");
    const w = bestWindow(text, ["retry", "budget", "net"], 120);
    expect(w.length).toBeLessThanOrEqual(120);
    expect(w).toContain("the retry budget is 3");
    expect(w).toContain("src/net/retry.ts");
  });
  it("reaches into one long line", () => {
    const text = `${"x ".repeat(2000)}needle found here ${"y ".repeat(2000)}`;
    expect(bestWindow(text, ["needle"], 200)).toContain("needle");
  });
});
