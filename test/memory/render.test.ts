// Memory hits render through one function, and `memcards search` runs the same hybrid search as search_memory.
import { describe, expect, it } from "vitest";

import { renderMemoryHits, renderMemoryList } from "../../src/memory/render.js";
import { searchMemory, searchMemoryHybrid } from "../../src/memory/service.js";
import { recordMemory } from "../../src/session/memory.js";
import { listMemories } from "../../src/storage/memories.js";
import { openTestApp } from "../graph/helpers.js";
import { runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

describe("memory hits as text", () => {
  it("prints each hit with its category, tier and status, then the raw archive; says so when nothing matches", () => {
    const hit = {
      id: 7,
      category: "failure",
      tier: "warm",
      status: "superseded",
      text: "login   test\nflakes",
      score: 1,
      evidence: [{ session: "s1", turn: "t3", quote: "q" }],
      files: [],
      history: { supersedes: [{ id: 2, text: "x" }], conflicts_with: { id: 9, text: "y" } },
    };
    const raw = [{ sessionId: "s1", turnId: "t4", role: "user", text: "why\n does it flake", score: 1 }];
    expect(renderMemoryHits({ hits: [hit], raw })).toBe(
      "- #7 [failure, warm, superseded] login test flakes (s1 t3); supersedes #2; conflicts with #9\n\nFrom the raw archive:\n- s1 t4 user: why does it flake",
    );
    expect(renderMemoryHits({ hits: [], raw: [] })).toBe("No memory unit matches.");
    expect(renderMemoryList([])).toMatch(/^no memory units yet/);
  });

  it("memcards search prints what renderMemoryHits makes of its --json result", () => {
    const root = tmpDir();
    const env = { MEMCARDS_HOME: tmpDir() };
    expect(runCli(["--root", root, "remember", "failure", "the login test flakes on CI"], { env }).code).toBe(0);
    const json = runCli(["--root", root, "search", "login test", "--json"], { env });
    const text = runCli(["--root", root, "search", "login test"], { env });
    const r = JSON.parse(json.stdout) as Parameters<typeof renderMemoryHits>[0];
    expect(r.hits.length).toBe(1);
    expect(text.stdout.trimEnd()).toBe(renderMemoryHits(r));
  });
});

describe("searchMemoryHybrid", () => {
  it("is lexical without vectors and fuses the query's vector when the project has them", async () => {
    const app = openTestApp(tmpDir());
    try {
      const deps = { db: app.db, projectId: app.project.id, root: app.location.root };
      recordMemory(deps, { category: "learning", text: "the parser drops trailing commas in arrays" });
      const input = { query: "parser commas" };
      const lexical = await searchMemoryHybrid(deps, input, { ...app.embedding, vectorsEnabled: false });
      expect(lexical).toEqual(searchMemory(deps, input));
      expect(lexical.hits.map((h) => h.text)).toEqual(listMemories(app.db, app.project.id).map((m) => m.text));
      const embedded: string[] = [];
      const embedder = {
        ...app.embedding.embedder,
        embed: (texts: readonly string[]) => {
          embedded.push(...texts);
          return app.embedding.embedder.embed(texts);
        },
      };
      const hybrid = await searchMemoryHybrid(deps, input, { embedder, vectorsEnabled: true });
      expect(embedded).toEqual(["parser commas"]);
      expect(hybrid.hits[0]?.text).toBe("the parser drops trailing commas in arrays");
    } finally {
      await app.close();
    }
  });
});
