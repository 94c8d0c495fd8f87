// An index run holds whole-file counts in memory before writing them, a bounded amount: a few large files with rich
// vocabularies have their counts written during the run, not only at its end, and the counts stored are theirs.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { fileTermRows } from "../../src/storage/graph/terms.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

const FILES = 8;
const WORDS_PER_FILE = 70_000;

/** A distinct lowercase word for each number (no digits, so no tokenizer splits it). */
function word(n: number): string {
  let s = "";
  do {
    s += String.fromCharCode(97 + (n % 26));
    n = Math.floor(n / 26);
  } while (n > 0);
  return `q${s}`;
}

/** Python files made of comment lines, each file's words its own: many distinct words, no symbols to parse. */
function richVocabularyRepo(): string {
  const root = tmpDir("memcards-rich-vocab-");
  for (let f = 0; f < FILES; f++) {
    const lines: string[] = [];
    for (let i = 0; i < WORDS_PER_FILE; i += 10) {
      const ws: string[] = [];
      for (let j = i; j < i + 10; j++) ws.push(word(f * 1_000_000 + j));
      lines.push(`# ${ws.join(" ")}`);
    }
    writeFileSync(join(root, `corpus_${f}.py`), `${lines.join("\n")}\n`);
  }
  return root;
}

describe("whole-file counts held during an index run", () => {
  const apps: App[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it("are written once the held files' words pass a bound, before the run ends", async () => {
    const root = richVocabularyRepo();
    const app = openTestApp(root);
    apps.push(app);
    // What the store holds each time the parse reports progress (each reported batch is written by then).
    const storedAtParse: number[] = [];
    const result = await buildGraph(app.scope, app, {
      lexicalOnly: true,
      onProgress: (p) => {
        if (p.phase === "parse") storedAtParse.push(fileTermRows(app.db).length);
      },
    });
    expect(result.files.parsed).toBe(FILES);
    expect(storedAtParse.length).toBeGreaterThan(0);
    // Over half a million distinct words parsed: their counts are in the store by the time the parse reports them.
    expect(storedAtParse.at(-1)).toBe(FILES);
    const rows = fileTermRows(app.db);
    expect(rows.map((r) => r.path).sort()).toEqual(Array.from({ length: FILES }, (_, f) => `corpus_${f}.py`).sort());
    for (const r of rows) expect(r.len).toBeGreaterThanOrEqual(WORDS_PER_FILE);
  }, 240_000);
});
