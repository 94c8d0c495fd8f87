// The per-file parse budget: pathological shapes and slow parses are indexed lexically and counted, never a stall.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { buildGraph } from "../../src/graph/build-graph.js";
import { renderBuild } from "../../src/graph/render.js";
import { createParser, shapeOverBudget } from "../../src/repo/parse.js";
import { regexParse } from "../../src/repo/regex-parse.js";
import { getNodeByKey } from "../../src/storage/graph/nodes.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";

const KB = 1024;
/** A Python file whose one line is `n` nested parentheses each way, between two ordinary functions. */
const nestedPython = (n: number) =>
  `def before():\n    return 1\n\nx = ${"(".repeat(n)}1${")".repeat(n)}\n\ndef after():\n    return 2\n`;
/** The same in TypeScript. */
const nestedTs = (n: number) =>
  `export function before(): number {\n  return 1;\n}\nexport const x = ${"(".repeat(n)}1${")".repeat(n)};\nexport class After {}\n`;

const parser = createParser();
afterAll(() => parser.dispose());

describe("shapeOverBudget", () => {
  it.each([
    ["ordinary code", "def f(a, b):\n    return [a, {b: (1, 2)}]\n", undefined],
    ["a long line", `x = "${"a".repeat(40 * KB)}"\n`, "a line of"],
    ["a long last line without a newline", `x = "${"a".repeat(40 * KB)}"`, "a line of"],
    ["deep nesting spread over lines", `${"(\n".repeat(300)}1${")\n".repeat(300)}`, "nested deeper than 256"],
    ["many shallow brackets in a row", "f(1)(2)[3]{4}".repeat(2000).replace(/\{4\}/g, "{4}\n"), undefined],
  ])("%s", (_name, content, reason) => {
    const r = shapeOverBudget(content);
    if (reason === undefined) expect(r).toBeUndefined();
    else expect(r).toContain(reason);
  });
});

describe("parseFile under the budget", () => {
  it("a 128 KB line of nested parentheses goes to the regex extractor, flagged over budget, symbols kept", async () => {
    const r = await parser.parseFile("deep.py", nestedPython(64 * KB));
    expect(r).toMatchObject({ parser: "regex", overBudget: true, language: "python" });
    expect(r.fallbackReason).toMatch(/^over budget: /);
    expect(r.symbols.map((s) => s.name)).toEqual(expect.arrayContaining(["before", "after"]));
    const ts = await parser.parseFile("deep.ts", nestedTs(64 * KB));
    expect(ts).toMatchObject({ parser: "regex", overBudget: true });
    expect(ts.symbols.map((s) => s.name)).toEqual(expect.arrayContaining(["before", "After"]));
  });

  it("an ordinary file stays with tree-sitter and is not flagged", async () => {
    const r = await parser.parseFile("ok.py", nestedPython(20));
    expect(r.parser).toBe("tree-sitter");
    expect(r.overBudget).toBeUndefined();
  });

  it("a parse past its deadline is cancelled through tree-sitter's progress callback and the parser stays usable", async () => {
    const spent = createParser({ budgetMs: 0 }); // every deadline has already passed
    try {
      const body = Array.from({ length: 400 }, (_, i) => `def f${i}(a):\n    return [a, ${i}]\n`).join("\n");
      const r = await spent.parseFile("many.py", body);
      expect(r).toMatchObject({ parser: "regex", overBudget: true });
      expect(r.fallbackReason).toMatch(/took over 0 ms/);
      expect(r.symbols).toHaveLength(400);
    } finally {
      spent.dispose();
    }
    // The shared parser, used before and after, still parses normally.
    expect((await parser.parseFile("ok.py", nestedPython(3))).parser).toBe("tree-sitter");
  });
});

describe("a build with pathological files", () => {
  it("completes, indexes them lexically and reports them as over budget", async () => {
    const root = tmpDir();
    writeFileSync(join(root, "deep.py"), nestedPython(64 * KB));
    writeFileSync(join(root, "deep.ts"), nestedTs(64 * KB));
    writeFileSync(join(root, "deeper.py"), nestedPython(500 * KB)); // ~1 MB, just under the scan's size limit
    writeFileSync(join(root, "fine.py"), "def fine():\n    return 0\n");
    const app = openTestApp(root);
    try {
      const r = await buildGraph(app.scope, app, { lexicalOnly: true });
      expect(r.cancelled).toBe(false);
      expect(r.files.parsed).toBe(4);
      expect(r.files.overBudget).toBe(3);
      expect(r.files.regexFallback).toBe(0);
      expect(renderBuild(r)).toContain("over budget: 3 files (indexed lexically)");
      expect(getNodeByKey(app.db, "sym:deep.py#after")).toBeDefined();
      expect(getNodeByKey(app.db, "sym:deeper.py#before")).toBeDefined();
      expect(getNodeByKey(app.db, "sym:deep.ts#After")).toBeDefined();
      expect(getNodeByKey(app.db, "sym:fine.py#fine")).toBeDefined();
    } finally {
      await app.close();
    }
  });
});

describe("the regex fallback on a hostile file", () => {
  /** Braces opened on every line and never closed: every definition's block runs to the end of the file. */
  const unclosed = (n: number) => Array.from({ length: n }, (_, i) => `function f${i}() {`).join("\n");

  it("scans a bounded multiple of the file for block ends, not every definition to the end of the file", async () => {
    const content = unclosed(6_000);
    const work = { scanned: 0 };
    const r = regexParse(content, "typescript", work);
    expect(work.scanned).toBeGreaterThan(0);
    expect(work.scanned).toBeLessThanOrEqual(4 * content.length + 65_536);
    expect(r.symbols.length).toBeGreaterThan(0);
    // The same file through the parser: the shape check sends it to the fallback, which finds its first function.
    const parsed = await parser.parseFile("open.ts", content);
    expect(parsed).toMatchObject({ parser: "regex", overBudget: true });
    expect(parsed.symbols.map((s) => s.name)).toContain("f0");
  });

  it("still gives ordinary definitions their whole block", () => {
    const content = "function a() {\n  return 1;\n}\n\nfunction b() {\n  if (x) {\n    y();\n  }\n}\n";
    const work = { scanned: 0 };
    const r = regexParse(content, "typescript", work);
    expect(r.symbols.map((s) => [s.name, s.startLine, s.endLine])).toEqual([
      ["a", 1, 3],
      ["b", 5, 9],
    ]);
  });
});
