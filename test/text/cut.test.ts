// The one cut helper: whole words and sentences, an ellipsis only where text was cut.
import { describe, expect, it } from "vitest";

import { makeCard } from "../../src/scoring/cards.js";
import { clipWords } from "../../src/text/cut.js";
import { count } from "../../src/text/plural.js";
import { shortPath } from "../../src/ui/html.js";

describe("clipWords", () => {
  it.each([
    ["I haven't touched the migration yet and will not until the review is done", 20],
    ["Contributors will run the full suite before they open a pull request.", 30],
    ["one two three four five six seven eight nine ten eleven twelve", 17],
  ])("never ends inside a word: %s", (text, max) => {
    const out = clipWords(text, max);
    expect(out.length).toBeLessThanOrEqual(max);
    expect(out.endsWith("…")).toBe(true);
    const kept = out.slice(0, -1);
    const words = text.split(/\s+/);
    for (const w of kept.split(" ")) expect(words.some((x) => x === w || x.replace(/[.,]$/, "") === w)).toBe(true);
  });

  it("keeps a whole sentence when that keeps at least half, and leaves short text alone", () => {
    expect(clipWords("Run the tests first. Then open the pull request and wait", 40)).toBe("Run the tests first.…");
    expect(clipWords("short  text\nhere", 40)).toBe("short text here");
  });

  it("does not leave a parenthesis open", () => {
    expect(clipWords("Use the helper (it keeps paths relative and short) everywhere", 30)).toBe("Use the helper…");
  });
});

describe("a test card", () => {
  it("is headed by the test file, and names the file it covers in its trigger", () => {
    const card = makeCard(
      {
        kind: "test",
        path: "tests/test_login.py",
        name: "test_login.py",
        text: "",
        about: { covers: "app/login.py" },
        signals: { channels: {} },
      } as never,
      { relevance: 1, decision: 0, recency: 0, confidence: 1, cost: 0.1 } as never,
      0.5,
      "c1",
    );
    expect(card.scope).toBe("tests/test_login.py");
    expect(card.trigger).toContain("app/login.py");
  });
});

describe("shortPath", () => {
  it("shows a path inside the root relative to it, and a long one by its end", () => {
    expect(shortPath("/home/me/proj/src/app.ts", "/home/me/proj")).toEqual({
      shown: "src/app.ts",
      full: "/home/me/proj/src/app.ts",
    });
    const long = `/Users/someone/${"deeply/nested/".repeat(8)}widget.ts`;
    const { shown, full } = shortPath(long, "/home/me/proj");
    expect(full).toBe(long);
    expect(shown.length).toBeLessThanOrEqual(60);
    expect(shown.startsWith("…/")).toBe(true);
    expect(long.endsWith(shown.slice(1))).toBe(true);
  });
});

describe("count", () => {
  it("puts the noun in the number it needs", () => {
    expect(count(1, "unit")).toBe("1 unit");
    expect(count(0, "unit")).toBe("0 units");
    expect(count(3, "entry", "entries")).toBe("3 entries");
  });
});
