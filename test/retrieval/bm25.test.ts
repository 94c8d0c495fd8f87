// Whole-file BM25: identifier-aware tokens, path tokens counted three times, textbook scoring.
import { describe, expect, it } from "vitest";

import { bm25Tokens, buildBm25Index, idf, pathTokens, scoreBm25 } from "../../src/retrieval/bm25.js";

describe("bm25Tokens", () => {
  it("keeps each identifier whole and adds its camelCase and snake_case parts", () => {
    expect(bm25Tokens("parseHTTPResponse(raw_body)")).toEqual([
      "parsehttpresponse",
      "parse",
      "http",
      "response",
      "raw_body",
      "raw",
      "body",
    ]);
  });

  it("keeps repeats and plain words, lower-cased", () => {
    expect(bm25Tokens("The the Cookie")).toEqual(["the", "the", "cookie"]);
  });

  it("splits paths on separators, dots and dashes", () => {
    expect(pathTokens("src/json_parser-v2.rs")).toEqual(["src", "json_parser", "json", "parser", "v2", "rs"]);
  });
});

describe("scoreBm25", () => {
  const docs = [
    { key: "src/cookies.py", text: "def merge(a, b):\n    return a" },
    { key: "src/sessions.py", text: "class Session:\n    cookies = None\n    def send(self): pass" },
    { key: "src/util.py", text: "def helper(): pass\n" + "filler words ".repeat(50) },
  ];
  const index = buildBm25Index(docs);

  it("ranks a file named by a query word above one that mentions it once in its body", () => {
    const r = scoreBm25(index, bm25Tokens("cookies are lost"));
    expect(r.map((x) => x.key)).toEqual(["src/cookies.py", "src/sessions.py"]);
  });

  it("counts a path token three times by default, once when pathWeight is 1", () => {
    const three = buildBm25Index([{ key: "a/cookies.py", text: "" }]);
    const one = buildBm25Index([{ key: "a/cookies.py", text: "" }], { pathWeight: 1 });
    expect(three.postings.get("cookies")).toEqual([{ doc: 0, tf: 3 }]);
    expect(one.postings.get("cookies")).toEqual([{ doc: 0, tf: 1 }]);
  });

  it("weights rare terms above common ones and never goes negative", () => {
    expect(idf(100, 1)).toBeGreaterThan(idf(100, 50));
    expect(idf(100, 100)).toBeGreaterThan(0);
  });

  it("normalizes by length: the same single hit scores lower in a longer file", () => {
    const idx = buildBm25Index([
      { key: "x/a.py", text: "needle" },
      { key: "x/b.py", text: "needle " + "hay ".repeat(200) },
    ]);
    const r = scoreBm25(idx, ["needle"]);
    expect(r[0]!.key).toBe("x/a.py");
    expect(r[0]!.score).toBeGreaterThan(r[1]!.score);
  });

  it("lets a repeated query word count more (the task's words are all kept)", () => {
    const idx = buildBm25Index([
      { key: "x/a.py", text: "alpha" },
      { key: "x/b.py", text: "beta" },
      { key: "x/c.py", text: "gamma" },
    ]);
    expect(scoreBm25(idx, ["alpha", "beta", "beta"])[0]!.key).toBe("x/b.py");
    expect(scoreBm25(idx, ["alpha", "alpha", "beta"])[0]!.key).toBe("x/a.py");
  });

  it("returns nothing for words no file holds, and at most `limit` files", () => {
    expect(scoreBm25(index, ["zzz"])).toEqual([]);
    expect(scoreBm25(index, bm25Tokens("def pass cookies"), 1)).toHaveLength(1);
  });
});

describe("letters of any script", () => {
  it("keeps accented, Cyrillic and CJK identifiers whole and splits them on case and underscores", () => {
    expect(bm25Tokens("naïve_bayes café Größe 获取用户 получитьДанные")).toEqual([
      "naïve_bayes",
      "naïve",
      "bayes",
      "café",
      "größe",
      "获取用户",
      "получитьданные",
      "получить",
      "данные",
    ]);
    expect(pathTokens("src/über/модуль.py")).toEqual(["src", "über", "модуль", "py"]);
  });

  it("keeps combining marks inside the word they follow", () => {
    expect(bm25Tokens("nai\u0308ve x")).toEqual(["nai\u0308ve", "x"]);
  });

  // A rescanning split is quadratic on a megabyte (hours), so returning at all under the hang guard is the check.
  it("tokenizes a megabyte-long identifier", () => {
    expect(bm25Tokens("A".repeat(1_000_000) + "a")).toHaveLength(3);
    expect(bm25Tokens("Ж".repeat(1_000_000) + "ж")).toHaveLength(3);
  });
});

describe("zero path weight", () => {
  it("adds no postings for path tokens and lists each matching document once", () => {
    const index = buildBm25Index(
      [
        { key: "a/cookies.py", text: "" },
        { key: "b/x.py", text: "y" },
      ],
      { pathWeight: 0 },
    );
    expect(index.postings.has("cookies")).toBe(false);
    expect(index.postings.has("py")).toBe(false);
    expect(scoreBm25(index, ["cookies", "a", "py"])).toEqual([]);
    const r = scoreBm25(buildBm25Index([{ key: "k", text: "y z" }], { pathWeight: 0 }), ["y", "z", "y"]);
    expect(r.map((x) => x.key)).toEqual(["k"]);
  });
});
