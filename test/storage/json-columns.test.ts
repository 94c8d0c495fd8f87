// JSON columns are decoded in storage with their schemas: typed values out, and a damaged value is either read as
// empty (node meta, stored imports, meta values) or fails with DB_CORRUPT naming the row (memories, summaries).
import { join } from "node:path";

import { describe, expect, it } from "vitest";
import { z } from "zod";

import { AppError } from "../../src/errors.js";
import { indexedImports } from "../../src/graph/index-changes.js";
import { resolveNode } from "../../src/graph/neighborhood.js";
import { openDatabase } from "../../src/storage/db.js";
import { fileImports, writeFile } from "../../src/storage/graph/files.js";
import { getNodeByKey, type NodeInput, ruleNodes } from "../../src/storage/graph/nodes.js";
import { getMemory, insertMemory, listMemories } from "../../src/storage/memories.js";
import { getMetaJson, setMeta, setMetaJson } from "../../src/storage/meta.js";
import { upsertProject } from "../../src/storage/projects.js";
import { appendSummary, latestSummary } from "../../src/storage/summaries.js";
import { tmpDir } from "../helpers/tmp.js";

function store() {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  return { db, projectId: upsertProject(db, "p", dir).id };
}

function node(key: string, over: Partial<NodeInput> = {}): NodeInput {
  return {
    key,
    type: "symbol",
    path: "src/a.ts",
    name: key,
    kind: "function",
    startLine: 1,
    endLine: 2,
    summary: null,
    tokens: 1,
    contentHash: null,
    source: "test",
    fts: { name: key, path: "", body: "" },
    ...over,
  };
}

function writeA(
  db: ReturnType<typeof store>["db"],
  projectId: number,
  nodes: NodeInput[],
  imports = [{ spec: "./b", line: 1 }],
) {
  writeFile(
    db,
    projectId,
    { path: "src/a.ts", language: "typescript", size: 1, mtimeMs: 1, hash: "h", isTest: false },
    "test",
    imports,
    [node("file:src/a.ts", { type: "file", name: "a.ts" }), ...nodes],
  );
}

function expectCorrupt(fn: () => unknown, column: string) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("DB_CORRUPT");
    expect((err as AppError).message).toContain(column);
    return;
  }
  throw new Error(`expected DB_CORRUPT for ${column}`);
}

describe("memories", () => {
  const unit = (projectId: number) => ({
    project_id: projectId,
    session_id: "s1",
    category: "failure",
    text: "the build breaks on Node 18",
    record: { remediation: "use Node 20" },
    merge_key: "k",
    confidence: 0.9,
    importance: 0.8,
    tier: "warm",
    status: "active",
    superseded_by: null,
    conflicts_with: null,
    evidence: [{ session: "s1", turn: "t3", quote: "breaks on 18" }],
    files: ["package.json"],
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
  });

  it("reads record, evidence and files back as values", () => {
    const { db, projectId } = store();
    const id = insertMemory(db, unit(projectId));
    const m = getMemory(db, id)!;
    expect(m.record).toEqual({ remediation: "use Node 20" });
    expect(m.evidence).toEqual([{ session: "s1", turn: "t3", quote: "breaks on 18" }]);
    expect(m.files).toEqual(["package.json"]);
  });

  it("fails with DB_CORRUPT naming the row when a column is not JSON of its shape", () => {
    const { db, projectId } = store();
    const id = insertMemory(db, unit(projectId));
    db.prepare("UPDATE memories SET evidence = ? WHERE id = ?").run("[{oops", id);
    expectCorrupt(() => getMemory(db, id), `memories.evidence value (row ${id})`);
    db.prepare("UPDATE memories SET evidence = '[]', files = ? WHERE id = ?").run("[1, 2]", id);
    expectCorrupt(() => listMemories(db, projectId), "memories.files");
  });
});

describe("nodes and files", () => {
  it("decodes node meta; a damaged meta reads as none and a mistyped field as absent", () => {
    const { db, projectId } = store();
    writeA(db, projectId, [node("sym:src/a.ts#Outer.inner", { name: "inner", meta: { parent: "Outer" } })]);
    expect(getNodeByKey(db, "sym:src/a.ts#Outer.inner")?.meta).toEqual({ parent: "Outer" });
    expect(resolveNode(db, "Outer.inner").node.key).toBe("sym:src/a.ts#Outer.inner");
    db.prepare("UPDATE nodes SET meta = ? WHERE key = ?").run(
      '{"parent": 7, "dir": "src"}',
      "sym:src/a.ts#Outer.inner",
    );
    expect(getNodeByKey(db, "sym:src/a.ts#Outer.inner")?.meta).toEqual({ dir: "src" });
    db.prepare("UPDATE nodes SET meta = ? WHERE key = ?").run("{not json", "sym:src/a.ts#Outer.inner");
    expect(getNodeByKey(db, "sym:src/a.ts#Outer.inner")?.meta).toBeNull();
  });

  it("reads rule scopes from meta, an unreadable one as no scope", () => {
    const { db, projectId } = store();
    writeA(db, projectId, [
      node("rule:AGENTS.md", {
        type: "rule",
        path: "AGENTS.md",
        meta: { dir: "src", globs: ["*.ts"], alwaysApply: true },
      }),
    ]);
    expect(ruleNodes(db)).toEqual([
      expect.objectContaining({ path: "AGENTS.md", meta: { dir: "src", globs: ["*.ts"], alwaysApply: true } }),
    ]);
    db.prepare("UPDATE nodes SET meta = 'nope' WHERE key = 'rule:AGENTS.md'").run();
    expect(ruleNodes(db)[0]!.meta).toEqual({});
  });

  it("decodes stored imports, skipping entries that are not import refs and a value that is not a list", () => {
    const { db, projectId } = store();
    writeA(db, projectId, [], [{ spec: "./b", line: 1 }]);
    expect(indexedImports(db)[0]!.imports).toEqual([{ spec: "./b", line: 1 }]);
    db.prepare("UPDATE files SET imports = ?").run('[{"spec": "./c", "line": 2}, {"line": 3}, "x"]');
    // Storage hands back the stored JSON list; the graph keeps only what the repository model reads as an import.
    expect(fileImports(db)[0]!.imports).toHaveLength(3);
    expect(indexedImports(db)[0]!.imports).toEqual([{ spec: "./c", line: 2 }]);
    db.prepare("UPDATE files SET imports = '{broken'").run();
    expect(fileImports(db)[0]!.imports).toEqual([]);
    expect(indexedImports(db)[0]!.imports).toEqual([]);
  });
});

describe("meta values and summaries", () => {
  it("reads a JSON meta value through its schema, undefined when it does not decode", () => {
    const { db } = store();
    const Run = z.object({ at: z.string(), files: z.number() });
    setMetaJson(db, "k", { at: "now", files: 3 });
    expect(getMetaJson(db, "k", Run)).toEqual({ at: "now", files: 3 });
    setMeta(db, "k", '{"at": 1}');
    expect(getMetaJson(db, "k", Run)).toBeUndefined();
    setMeta(db, "k", "{");
    expect(getMetaJson(db, "k", Run)).toBeUndefined();
  });

  it("decodes a summary's sections and stats; a damaged one is DB_CORRUPT", () => {
    const { db, projectId } = store();
    const row = {
      session_id: "s1",
      markdown: "# s",
      sections: JSON.stringify({ intent: ["ship"] }),
      last_turn_id: "t1",
      last_turn_index: 1,
      format: "messages",
      stats: JSON.stringify({ tokens_before: 10, tokens_summarized: 10 }),
    };
    appendSummary(db, projectId, row, undefined);
    const got = latestSummary(db, "s1")!;
    expect(got.sections).toEqual({ intent: ["ship"] });
    expect(got.stats).toEqual({ tokens_before: 10, tokens_summarized: 10 });
    db.prepare("UPDATE summaries SET stats = '[1]'").run();
    expectCorrupt(() => latestSummary(db, "s1"), "summaries.stats");
  });
});
