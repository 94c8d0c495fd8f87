import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { type LanguageId } from "../../src/repo/languages.js";
import { type CodeSymbol, createParser, type ParsedFile } from "../../src/repo/parse.js";
import { tmpDir } from "../helpers/tmp.js";
import { POLYGLOT } from "./fixture.js";

const require = createRequire(import.meta.url);

const parser = createParser();
afterAll(() => parser.dispose());

async function parse(path: string, language?: LanguageId): Promise<ParsedFile> {
  return parser.parseFile(path, readFileSync(join(POLYGLOT, path), "utf8"), language);
}

/** Symbols as compact rows: `kind parent.name start-end`. */
const rows = (symbols: CodeSymbol[]) =>
  symbols.map((s) => `${s.kind} ${s.parent ? s.parent + "." : ""}${s.name} ${s.startLine}-${s.endLine}`);

describe("parseFile with tree-sitter", () => {
  it("python: classes, methods (decorated spans), functions, module constants; locals left out; imports", async () => {
    const r = await parse("pyproj/shapes/geometry.py");
    expect(r.parser).toBe("tree-sitter");
    expect(r.language).toBe("python");
    expect(rows(r.symbols)).toEqual([
      "constant PI_ISH 8-8",
      "class Circle 11-23",
      "method Circle.area 15-16",
      "method Circle.diameter 18-23",
      "function distance 26-27",
    ]);
    expect(r.symbols.find((s) => s.name === "Circle")!.signature).toBe("class Circle:");
    expect(r.symbols.find((s) => s.name === "diameter")!.signature).toBe("def diameter(self) -> float:");
    expect(r.imports).toEqual([
      { spec: "math", line: 2 },
      { spec: "dataclasses", names: ["dataclass"], line: 3 },
      { spec: ".", names: ["util"], line: 5 },
      { spec: ".util", names: ["clamp"], line: 6 },
    ]);
    const poly = await parse("pyproj/shapes/sub/poly.py");
    expect(poly.imports.map((i) => i.spec)).toEqual(["..util", ".."]);
    expect(rows(poly.symbols)).toEqual(["class Polygon 5-7", "method Polygon.sides 6-7"]);
  });

  it("typescript: classes, methods, accessors, functions, arrow consts, interfaces, types, enums; imports", async () => {
    const math = await parse("web/src/math.ts");
    expect(rows(math.symbols)).toEqual([
      "function add 2-4",
      "function square 6-6",
      "constant LIMIT 8-8",
      "interface Pair 10-13",
      "type Op 15-15",
      "enum Mode 17-20",
    ]);
    const index = await parse("web/src/index.ts");
    expect(rows(index.symbols)).toEqual([
      "class Calculator 5-16",
      "method Calculator.plus 8-11",
      "method Calculator.value 13-15",
      "function main 18-20",
    ]);
    expect(index.imports).toEqual([
      { spec: "./math.js", names: ["add", "Pair"], line: 1 },
      { spec: "./helpers", names: ["*"], line: 2 },
      { spec: "express", names: ["default"], line: 3 },
    ]);
  });

  it("tsx and javascript: components, classes, require()", async () => {
    const button = await parse("web/src/components/Button.tsx");
    expect(button.language).toBe("tsx");
    expect(button.parser).toBe("tree-sitter");
    expect(rows(button.symbols)).toEqual(["function Button 3-5", "class Legacy 7-11", "method Legacy.render 8-10"]);
    expect(button.imports).toEqual([{ spec: "../math", names: ["square"], line: 1 }]);
    const legacy = await parse("web/src/legacy.js");
    expect(rows(legacy.symbols)).toEqual([
      "constant math 1-1",
      "class Counter 3-10",
      "method Counter.constructor 4-6",
      "method Counter.inc 7-9",
      "function make 12-14",
    ]);
    expect(legacy.imports).toEqual([{ spec: "./math", line: 1 }]);
  });

  it("go: structs, interfaces, functions, methods with the receiver as parent; import blocks", async () => {
    const r = await parse("gosvc/store/store.go");
    expect(rows(r.symbols)).toEqual([
      "struct Store 7-10",
      "interface Getter 13-15",
      "function New 18-20",
      "method Store.Get 23-27",
      "method Store.Put 29-33",
    ]);
    expect(r.symbols.find((s) => s.name === "Get")!.signature).toBe("func (s *Store) Get(key string) string {");
    const main = await parse("gosvc/main.go");
    expect(main.imports).toEqual([
      { spec: "fmt", line: 4 },
      { spec: "example.com/gosvc/store", line: 6 },
    ]);
  });

  it("rust: structs, traits, enums, impl methods (parent = the type), consts; use lists and mod declarations", async () => {
    const r = await parse("rustcrate/src/geometry.rs");
    expect(rows(r.symbols)).toEqual([
      "constant ORIGIN 5-5",
      "struct Point 8-11",
      "trait Area 13-15",
      "method Area.area 14-14",
      "enum Shape 17-20",
      "method Point.norm 23-25",
      "method Shape.area 29-34",
      "method Point.fmt 38-40",
    ]);
    const lib = await parse("rustcrate/src/lib.rs");
    expect(lib.imports).toEqual([
      { spec: "mod geometry", line: 2 },
      { spec: "mod util", line: 3 },
      { spec: "crate::geometry", names: ["Point", "Area"], line: 5 },
    ]);
    expect(rows(lib.symbols)).toEqual(["function version 7-9"]);
  });

  it("java: classes, constructors, methods, nested enums, static final constants; imports", async () => {
    const r = await parse("java/src/main/java/com/example/shapes/Circle.java");
    expect(rows(r.symbols)).toEqual([
      "class Circle 7-30",
      "constant Circle.UNIT 8-8",
      "method Circle.Circle 12-14",
      "method Circle.area 16-19",
      "method Circle.many 21-24",
      "enum Circle.Kind 26-29",
    ]);
    expect(r.imports.map((i) => i.spec)).toEqual(["java.util.List", "java.util.Objects"]);
    const test = await parse("java/src/test/java/com/example/shapes/CircleTest.java");
    expect(test.imports.map((i) => i.spec)).toEqual([
      "org.junit.jupiter.api.Assertions.assertEquals",
      "org.junit.jupiter.api.Test",
    ]);
  });

  it("c and c++: functions, prototypes, structs, typedefs, enums, macros, classes, namespaces, A::m methods; includes", async () => {
    const h = await parse("csrc/geom.h");
    expect(rows(h.symbols)).toEqual([
      "constant GEOM_MAX 4-4",
      "type point_t 6-9",
      "struct point 6-9",
      "enum color 11-11",
      "function dist 13-13",
      "function make_point 14-14",
    ]);
    const c = await parse("csrc/geom.c");
    expect(rows(c.symbols)).toEqual(["function dist 5-9", "function make_point 11-16"]);
    expect(c.imports.map((i) => i.spec)).toEqual(["<math.h>", "<stdlib.h>", "geom.h"]);
    const hpp = await parse("csrc/shape.hpp");
    expect(hpp.language).toBe("cpp");
    expect(rows(hpp.symbols)).toEqual([
      "module geo 4-22",
      "class geo.Shape 6-11",
      "method Shape.area 9-9",
      "method Shape.name 10-10",
      "class geo.Square 13-20",
      "method Square.Square 15-15",
      "method Square.area 16-16",
    ]);
    const cpp = await parse("csrc/shape.cpp");
    expect(rows(cpp.symbols)).toEqual([
      "module geo 3-14",
      "method Square.Square 5-5",
      "method Square.area 7-7",
      "function geo.twice 10-12",
    ]);
  });

  it("ruby: modules, classes, methods, singleton methods, constants; require and require_relative", async () => {
    const r = await parse("ruby/lib/greeter.rb");
    expect(rows(r.symbols)).toEqual([
      "module Greeter 4-22",
      "constant Greeter.DEFAULT_NAME 5-5",
      "class Greeter.Formal 7-21",
      "method Formal.initialize 10-12",
      "method Formal.greet 14-16",
      "method Formal.build 18-20",
    ]);
    expect(r.imports).toEqual([
      { spec: "json", line: 1 },
      { spec: "./greeter/version", line: 2 },
    ]);
    const spec = await parse("ruby/spec/greeter_spec.rb");
    expect(spec.imports).toEqual([{ spec: "../lib/greeter", line: 1 }]);
  });
});

describe("parseFile fallbacks", () => {
  it("uses regexes for languages without a grammar (kotlin, shell)", async () => {
    const kt = await parse("kotlin/App.kt");
    expect(kt.parser).toBe("regex");
    expect(kt.fallbackReason).toBeUndefined();
    expect(rows(kt.symbols)).toEqual([
      "class Config 5-5",
      "class App 7-11",
      "method App.run 8-10",
      "function main 13-15",
    ]);
    expect(kt.imports).toEqual([{ spec: "com.example.shapes.Circle", line: 3 }]);
    const sh = await parse("scripts/deploy.sh");
    expect(rows(sh.symbols)).toEqual(["function build 5-7", "function deploy 9-12"]);
    expect(sh.imports).toEqual([{ spec: "./scripts/env.sh", line: 3 }]);
  });

  it("falls back to regexes with a reason when a grammar cannot be loaded, and never throws", async () => {
    const broken = createParser({ grammarDir: "/nonexistent/grammars" });
    try {
      const src = readFileSync(join(POLYGLOT, "pyproj/shapes/geometry.py"), "utf8");
      const r = await broken.parseFile("geometry.py", src);
      expect(r.parser).toBe("regex");
      expect(r.fallbackReason).toMatch(/grammar load failed/);
      expect(rows(r.symbols)).toEqual([
        "constant PI_ISH 8-8",
        "class Circle 12-23",
        "method Circle.area 15-16",
        "method Circle.diameter 19-23",
        "function distance 26-27",
      ]);
      expect(r.imports.map((i) => i.spec)).toEqual(["math", "dataclasses", ".", ".util"]);
      const go = await broken.parseFile("x.go", readFileSync(join(POLYGLOT, "gosvc/store/store.go"), "utf8"));
      expect(rows(go.symbols)).toEqual([
        "struct Store 7-10",
        "interface Getter 13-15",
        "function New 18-20",
        "method Store.Get 23-27",
        "method Store.Put 29-33",
      ]);
      const main = await broken.parseFile("main.go", readFileSync(join(POLYGLOT, "gosvc/main.go"), "utf8"));
      expect(main.imports.map((i) => i.spec)).toEqual(["fmt", "example.com/gosvc/store"]);
    } finally {
      broken.dispose();
    }
  });

  it("survives syntax errors, binary-ish text, empty files and unknown languages", async () => {
    const bad = await parser.parseFile(
      "bad.py",
      "def ok():\n    return 1\n\nclass (:\n  def ???\n\ndef later():\n    pass\n",
    );
    expect(bad.parser).toBe("tree-sitter");
    expect(bad.symbols.map((s) => s.name)).toEqual(expect.arrayContaining(["ok", "later"]));
    const empty = await parser.parseFile("empty.ts", "");
    expect(empty).toMatchObject({ symbols: [], imports: [], parser: "tree-sitter" });
    const weird = await parser.parseFile("w.rs", "\u0000\u0001 fn fn fn {{{{ ]]]");
    expect(weird.parser).toBe("tree-sitter");
    const unknown = await parser.parseFile("notes.xyz", "whatever");
    expect(unknown).toMatchObject({ language: null, symbols: [], imports: [], parser: "regex" });
  });

  it("loads grammars one at a time even when files of many languages are parsed concurrently", async () => {
    const fresh = createParser();
    try {
      const files = [
        "pyproj/shapes/geometry.py",
        "web/src/index.ts",
        "web/src/components/Button.tsx",
        "web/src/legacy.js",
        "gosvc/store/store.go",
        "rustcrate/src/geometry.rs",
        "java/src/main/java/com/example/shapes/Circle.java",
        "csrc/geom.c",
        "csrc/shape.cpp",
        "ruby/lib/greeter.rb",
      ];
      const results = await Promise.all(files.map((p) => fresh.parseFile(p, readFileSync(join(POLYGLOT, p), "utf8"))));
      expect(results.map((r) => `${r.path} ${r.parser} ${r.fallbackReason ?? ""}`)).toEqual(
        files.map((p) => `${p} tree-sitter `),
      );
    } finally {
      fresh.dispose();
    }
  });

  it("reuses one grammar and query per language across many files", async () => {
    // The grammar is read from disk once: with the file gone after the first parse, the next 199 still use it.
    const grammarDir = tmpDir("memcards-grammars-");
    const wasm = "tree-sitter-typescript.wasm";
    copyFileSync(join(dirname(require.resolve("tree-sitter-wasms/package.json")), "out", wasm), join(grammarDir, wasm));
    const own = createParser({ grammarDir });
    try {
      const src = readFileSync(join(POLYGLOT, "web/src/index.ts"), "utf8");
      const parsers: string[] = [];
      for (let i = 0; i < 200; i++) {
        const r = await own.parseFile(`f${i}.ts`, src);
        expect(r.symbols).toHaveLength(4);
        parsers.push(r.parser);
        if (i === 0) rmSync(join(grammarDir, wasm));
      }
      expect(new Set(parsers)).toEqual(new Set(["tree-sitter"]));
    } finally {
      own.dispose();
    }
  });
});
