// Listing memcards' tools loads no domain code: tool schemas live in light modules, and each tool's run (and the
// app behind it: store, embedder, ranker) is a dynamic import taken on the first call. Checked on the static
// import graph of `serve` (what Node loads before the first call), module by module.
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

import { describe, expect, it } from "vitest";

import { repoRoot } from "../helpers/cli.js";

const src = join(repoRoot, "src");

/** The modules a file imports for their values at load time (`import type` and `import()` load nothing then). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found = [...text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"(\.{1,2}\/[^"]+)"/gms)];
  return found.map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, ".ts")));
}

/** Every source module loaded before the first call when `entry` is loaded. */
function loadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [join(src, entry)];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...staticImports(f));
  }
  return new Set([...seen].map((f) => relative(src, f)));
}

describe("serve start-up", () => {
  const loaded = loadedBy("serve.ts");

  it("loads the tools' definitions and schemas", () => {
    expect(loaded).toContain("mcp/tools/get-memory-cards.ts");
    expect(loaded).toContain("cards/input.ts");
    expect(loaded).toContain("memory/input.ts");
    expect(loaded).toContain("transcript/compression/input.ts");
  });

  it("loads no tool's run, no app, no store and no domain service before a call", () => {
    const heavy = [...loaded].filter(
      (f) =>
        f.endsWith(".run.ts") ||
        /^(app|app-cache)\.ts$/.test(f) ||
        /^(storage|retrieval|embeddings|team|session)\//.test(f) ||
        /^(cards|memory)\/service\.ts$/.test(f) ||
        /^transcript\/compression\/compress\.ts$/.test(f) ||
        (f.startsWith("graph/") && f !== "graph/node-brief.ts"),
    );
    expect(heavy).toEqual([]);
  });

  it("has a run module for every tool, loaded by a dynamic import", () => {
    const tools = [...loaded].filter((f) => /^mcp\/tools\/[^/.]+\.ts$/.test(f));
    expect(tools.length).toBeGreaterThanOrEqual(11);
    for (const t of tools) {
      const name = t.slice("mcp/tools/".length, -".ts".length);
      expect(readFileSync(join(src, t), "utf8"), t).toContain(`import("./${name}.run.js")`);
    }
  });
});
