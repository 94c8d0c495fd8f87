// Symbol bodies kept at index time: a ranking scores symbols from the stored own tokens exactly as from the files'
// lines, without reading a file; the stored bodies follow an edit, and a store counted before they were kept gets
// them at the next index run.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { bm25SourceFiles, refreshFileTerms } from "../../src/graph/file-terms.js";
import { bm25Tokens } from "../../src/retrieval/bm25.js";
import { fileSymbolsReader, keptFileSymbols } from "../../src/retrieval/file-symbols.js";
import { rankFileSymbols } from "../../src/retrieval/rank.js";
import { LEARNED_SYMBOL_WEIGHTS, type SymbolQuery } from "../../src/retrieval/symbols.js";
import { fileHash } from "../../src/storage/graph/files.js";
import { symbolsOfFile } from "../../src/storage/graph/nodes.js";
import { storedSymbolBodies } from "../../src/storage/graph/terms.js";
import { termPositions } from "../../src/text/symbol-bodies.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

const QUERIES = [
  "circle radius diameter area",
  "parse the config file and return the handler",
  "store get put key value",
  "render the widget props state",
];

const query = (text: string): SymbolQuery => ({ tokens: new Set(bm25Tokens(text)), named: new Set() });

describe("stored symbol bodies", () => {
  let app: App;
  let root: string;
  let files: string[];
  const fromLines = (p: string) => readFileSync(join(root, p), "utf8").split("\n");
  beforeAll(async () => {
    root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
    files = bm25SourceFiles(app.db)
      .map((s) => s.path)
      .filter((p) => symbolsOfFile(app.db, p).length > 0);
  });
  afterAll(async () => {
    await app.close();
  });

  /** Symbols ranked from the store (recording any file read) and from the files' lines. */
  function bothWays(q: SymbolQuery) {
    const reads: string[] = [];
    const stored = rankFileSymbols(app.db, files, q, LEARNED_SYMBOL_WEIGHTS, (p) => {
      reads.push(p);
      return fromLines(p);
    });
    return { stored, reads };
  }

  it("are written for every source file with symbols, and rank exactly as the lines do without reading a file", () => {
    expect(files.length).toBeGreaterThan(10);
    for (const p of files) expect(storedSymbolBodies(app.db, p)?.bodies.byteLength, p).toBeGreaterThan(0);
    for (const text of QUERIES) {
      const { stored, reads } = bothWays(query(text));
      expect(reads, text).toEqual([]);
      expect(
        stored.some((s) => s.features.body > 0),
        text,
      ).toBe(true);
      // Without stored bodies, every file's lines are tokenized; the next refresh stores them again.
      app.db.exec("DELETE FROM symbol_terms");
      const lines = rankFileSymbols(app.db, files, query(text), LEARNED_SYMBOL_WEIGHTS, fromLines);
      expect(stored, text).toEqual(lines);
      refreshFileTerms(app.db, root);
    }
  });

  it("kept by a ranker, rank as the store read each time does, each file read once, the least recently used let go", () => {
    const read = fileSymbolsReader(app.db);
    const counts = new Map<string, number>();
    const counted = (p: string) => {
      counts.set(p, (counts.get(p) ?? 0) + 1);
      return read(p);
    };
    const kept = keptFileSymbols(counted, (p) => fileHash(app.db, p), files.length);
    for (const text of [...QUERIES, ...QUERIES]) {
      const fresh = rankFileSymbols(app.db, files, query(text), LEARNED_SYMBOL_WEIGHTS, fromLines);
      expect(rankFileSymbols(app.db, files, query(text), LEARNED_SYMBOL_WEIGHTS, fromLines, kept), text).toEqual(fresh);
    }
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(counts.size).toBe(files.length);
    // Two places: the first file is used again, so the second is the one let go when a third comes.
    const small = keptFileSymbols(counted, (p) => fileHash(app.db, p), 2);
    const [a, b, c] = files as [string, string, string];
    counts.clear();
    for (const p of [a, b, a, c, a, b]) small(p);
    expect(Object.fromEntries(counts)).toEqual({ [a]: 1, [b]: 2, [c]: 1 });
  });

  it("follow an edit, and a store counted before they were kept gets them at the next index run", async () => {
    const edited = files.find((p) => p.endsWith(".py"))!;
    writeFileSync(
      join(root, edited),
      `${readFileSync(join(root, edited), "utf8")}\n\ndef zebrafish_habitat(x):\n    return x.zebrafish + habitat\n`,
    );
    await buildGraph(app.scope, app);
    const q = query("zebrafish habitat");
    const { stored, reads } = bothWays(q);
    expect(reads).toEqual([]);
    expect(stored[0]?.name).toBe("zebrafish_habitat");
    expect(stored[0]?.features.body).toBe(1);

    app.db.exec("DELETE FROM symbol_terms");
    expect(storedSymbolBodies(app.db, edited)).toBeUndefined();
    // Meanwhile a ranking tokenizes the files it ranks.
    const meanwhile = bothWays(q);
    expect(meanwhile.reads.length).toBe(files.length);
    expect(meanwhile.stored).toEqual(stored);
    expect(refreshFileTerms(app.db, root).read).toBe(bm25SourceFiles(app.db).length);
    expect(bothWays(q).reads).toEqual([]);
  });
});

describe("term positions in a stored term list", () => {
  it("finds each token as a whole term, at its place in the list, as splitting the list would", () => {
    const terms = ["get", "getter", "target", "et", "set", "x", "get_set", "ge"];
    const list = terms.join(" ");
    const tokens = new Set(["et", "get", "ge", "set", "x", "missing", "get set", "arg"]);
    const want = new Map<number, string>();
    terms.forEach((t, i) => {
      if (tokens.has(t)) want.set(i, t);
    });
    expect(termPositions(list, tokens)).toEqual(want);
    expect(termPositions("", tokens).size).toBe(0);
  });
});
