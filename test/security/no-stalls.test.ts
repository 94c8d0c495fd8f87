// Text from a client (a task, file entries, pasted logs, transcripts) is parsed in linear time: every parser that
// sees it reads a megabyte of runs built to make a backtracking regex rescan (identifier characters, dots, slashes,
// colons, dashes, newlines, unclosed markers) and returns. A pass that rescans is quadratic here (10^12 steps: hours),
// so finishing within the test's hang guard is the check; how fast a parser is belongs in benchmarks.
import { describe, expect, it } from "vitest";

import type { Sections, Turn } from "../../src/conversation/schema.js";
import { draftUnits } from "../../src/memory/distill.js";
import { extractAnchors, queryTerms } from "../../src/retrieval/query.js";
import { identifierTokens } from "../../src/text/identifiers.js";
import { redact } from "../../src/text/redact.js";
import { signature } from "../../src/text/signature.js";
import { emptySections } from "../../src/transcript/extraction/merge.js";

const MB = 1_000_000;

const PATTERNS = [
  "a",
  "a.",
  ".",
  "a/",
  "/",
  "a-",
  "a::",
  "::::",
  "a.b.c/d-e_",
  "x.py",
  "src/",
  "\n",
  " \n",
  "Foo ",
  "foo bar ",
  'File "',
  "at (",
  "A.a",
  "sk-",
  "<private>",
  "-----BEGIN RSA PRIVATE KEY-----",
  "a://",
];

const adversarial = (p: string) => p.repeat(Math.ceil(MB / p.length)).slice(0, MB);

const turn: Turn = { id: "t1", index: 0, role: "user", kind: "message", text: "ok", tool_calls: [], tool_results: [] };

function sectionsWith(text: string): Sections {
  return { ...emptySections(), constraints: [{ text, turn: "t1" }] };
}

describe("parsers over a megabyte of adversarial text", () => {
  const parsers: [string, (s: string) => unknown][] = [
    ["extractAnchors", extractAnchors],
    ["queryTerms", (s) => queryTerms(s)],
    ["identifierTokens", identifierTokens],
    ["redact", redact],
    ["signature", signature],
    ["draftUnits", (s) => draftUnits("s", [turn], sectionsWith(s))],
  ];
  for (const [name, parse] of parsers) {
    it(`${name} reads every adversarial megabyte`, () => {
      const read = PATTERNS.filter((p) => parse(adversarial(p)) !== undefined);
      expect(read).toEqual(PATTERNS);
    }, 120_000);
  }

  it("still finds what the rewritten patterns are for", () => {
    const anchors = extractAnchors("pytest tests/test_io.py::test_roundtrip fails after editing src/io.py");
    expect(anchors).toContainEqual(expect.objectContaining({ kind: "test", text: "tests/test_io.py" }));
    expect(redact("a <private>x</private> b <private>y</private> c")).toBe("a [private] b [private] c");
    expect(redact("open <private> never closed")).toBe("open <private> never closed");
    expect(redact("\n\n  export API_TOKEN=abcdef123\n")).toBe("\n\n  export API_TOKEN=[redacted]\n");
    expect(redact("see https://me:hunter22@example.com/x")).toBe("see https://me:[redacted]@example.com/x");
    expect(signature("Error in /home/u/app/src/main.py line 3")).toBe("error in <path> line <n>");
    const drafts = draftUnits("s", [turn], sectionsWith("Never edit lib/gen/schema.ts or api.py"));
    expect(drafts.find((d) => d.category === "commitment")?.files).toEqual(["lib/gen/schema.ts", "api.py"]);
  });
});
