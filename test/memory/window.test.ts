// The best window of a long turn for a query.
import { describe, expect, it } from "vitest";

import { bestWindow, sentenceWindow } from "../../src/memory/window.js";
import { identifierTokens } from "../../src/text/identifiers.js";

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

describe("sentenceWindow", () => {
  it("returns whole sentences around the query's terms, never a cut word", () => {
    const text = [
      "Looking at the startup code now.",
      "**Could be better:** You're using `Environment.GetEnvironmentVariable()` directly instead of the .NET Configuration system. Your appsettings still holds the Mongo settings.",
      "",
      "```csharp",
      'var cs = Environment.GetEnvironmentVariable("MONGODB_CONNECTION_STRING");',
      "```",
      ...Array.from({ length: 40 }, (_, i) => `Unrelated line ${i} about logging and NLog targets.`),
    ].join("\n");
    const w = sentenceWindow(text, identifierTokens("configuration environment variable instead"), 200);
    expect(w).toContain(
      "You're using `Environment.GetEnvironmentVariable()` directly instead of the .NET Configuration system.",
    );
    expect(w.length).toBeLessThanOrEqual(200);
    expect(w).not.toContain("Unrelated line 30");
  });

  it("is empty when no query term is in the text", () => {
    expect(sentenceWindow("Nothing to see here. At all.", ["mongodb"], 200)).toBe("");
  });
});

describe("a window inside one long line", () => {
  it("joins the pieces of the line back without a break, so a sentence in it reads whole", () => {
    const line = `${"a filler word ".repeat(40)}You're using Environment.GetEnvironmentVariable() directly instead of .NET Configuration system ${"more filler ".repeat(40)}`;
    const w = bestWindow(line, ["getenvironmentvariable", "configuration"], 300);
    expect(w).not.toContain("\n");
    expect(w).toContain("directly instead of .NET Configuration");
  });
});
