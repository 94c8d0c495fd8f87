// One category vocabulary: every input (record, search, list, import; tools and commands) takes the stored
// categories and their aliases, and every output names the stored category.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { exportMemory, importMemory } from "../../src/memory/admin.js";
import { searchMemory } from "../../src/memory/service.js";
import { recordMemory } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { listMemories } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { canonicalCategory, CATEGORY_ALIASES, CategoryName, UnitCategory } from "../../src/vocab.js";
import { runCli } from "../helpers/cli.js";
import { connect } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

function store() {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const projectId = upsertProject(db, "p", dir).id;
  return { db, projectId, dir, deps: { db, projectId, root: dir } };
}

describe("the category vocabulary", () => {
  it("accepts each stored category as itself and each alias as the category it names", () => {
    for (const c of UnitCategory.options) expect(canonicalCategory(CategoryName.parse(c))).toBe(c);
    expect(canonicalCategory("decision")).toBe("reasoning");
    expect(canonicalCategory("rule")).toBe("commitment");
    for (const target of Object.values(CATEGORY_ALIASES)) expect(UnitCategory.options).toContain(target);
    expect(CategoryName.safeParse("background").success).toBe(false);
    expect(CategoryName.safeParse("DECISION").success).toBe(false);
  });

  it("stores a decision as reasoning and a rule as a commitment, and finds them by either name", () => {
    const { db, projectId, deps } = store();
    const d = recordMemory(deps, { category: "decision", text: "Use SQLite with WAL for the local store" });
    const r = recordMemory(deps, { category: "rule", text: "Never edit generated files under gen/" });
    recordMemory(deps, { category: "reasoning", text: "Chose a worker thread for parsing the repository" });
    const rows = listMemories(db, projectId);
    expect(rows.find((m) => m.id === d.id)).toMatchObject({ category: "reasoning", record: { kind: "decision" } });
    expect(rows.find((m) => m.id === r.id)).toMatchObject({ category: "commitment", record: { by: "rule" } });
    const byAlias = searchMemory(deps, { query: "SQLite store", category: "decision" }).hits;
    expect(byAlias.map((h) => [h.id, h.category])).toEqual([[d.id, "reasoning"]]);
    expect(searchMemory(deps, { query: "SQLite store", category: "reasoning" }).hits.map((h) => h.id)).toEqual([d.id]);
    expect(searchMemory(deps, { query: "generated files", category: "rule" }).hits.map((h) => h.id)).toEqual([r.id]);
    expect(searchMemory(deps, { query: "generated files", category: "decision" }).hits).toHaveLength(0);
  });

  it("imports exports that name a category by its alias, and exports the stored name", () => {
    const { db, projectId, dir } = store();
    const line = (category: string, text: string) =>
      JSON.stringify({ category, text, key: text.toLowerCase(), confidence: 0.9 });
    const file = join(dir, "units.jsonl");
    writeFileSync(
      file,
      [line("decision", "Adopt zod schemas"), line("rule", "Keep the API stable"), line("opinion", "x")].join("\n"),
    );
    expect(importMemory(db, projectId, file)).toMatchObject({ imported: 2, skipped: 1 });
    const exported = exportMemory(db, projectId)
      .split("\n")
      .map((l) => JSON.parse(l) as { category: string; text: string });
    expect(exported.map((u) => [u.category, u.text]).sort()).toEqual([
      ["commitment", "Keep the API stable"],
      ["reasoning", "Adopt zod schemas"],
    ]);
  });
});

describe("over MCP", () => {
  it("record_memory and search_memory take the aliases; results name the stored category", async () => {
    const c = await connect({ flags: { root: tmpDir(), embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const { tools } = await c.client.listTools();
      for (const name of ["record_memory", "search_memory"]) {
        const props = tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, { enum: string[] }>;
        expect(props.category!.enum.sort(), name).toEqual([...CategoryName.options].sort());
      }
      const stored = await c.client.callTool({
        name: "record_memory",
        arguments: { category: "decision", text: "Serve cards from the warm tier only" },
      });
      expect(stored.isError).toBeFalsy();
      const found = await c.client.callTool({
        name: "search_memory",
        arguments: { query: "warm tier cards", category: "decision" },
      });
      expect(found.structuredContent).toMatchObject({ hits: [{ category: "reasoning" }] });
    } finally {
      await c.close();
    }
  });
});

describe("on the command line", () => {
  it("remember decision, then memories and search --category decision find it; a bad name is refused", () => {
    const root = tmpDir();
    const env = { MEMCARDS_HOME: tmpDir() };
    const cli = (...args: string[]) => runCli(["--root", root, "--embedder", "offline", ...args], { env });
    expect(cli("remember", "decision", "Ship the offline embedder by default").code).toBe(0);
    expect(cli("remember", "learning", "The offline embedder hashes tokens").code).toBe(0);
    const listed = cli("memories", "--category", "decision", "--json");
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { category: string; text: string }[];
    expect(rows.map((m) => [m.category, m.text])).toEqual([["reasoning", "Ship the offline embedder by default"]]);
    const found = cli("search", "offline embedder", "--category", "decision", "--json");
    expect(found.code).toBe(0);
    const hits = (JSON.parse(found.stdout) as { hits: { category: string }[] }).hits;
    expect(hits.map((h) => h.category)).toEqual(["reasoning"]);
    const bad = cli("memories", "--category", "decisions");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/BAD_INPUT: --category decisions is not a memory category: use commitment \|/);
  });
});
