// Why the graph's FTS index keeps full detail (positions): a smaller `detail=column` index would be contentless like
// nodes_fts, and on such a table FTS5's bm25() scores every row 0, while both graph channels rank by bm25(). If this
// ever fails, SQLite scores contentless column-detail tables and the smaller index is worth measuring again.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

function scores(options: string): number[] {
  const db = new Database(":memory:");
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(name, body, ${options})`);
  const ins = db.prepare("INSERT INTO t (rowid, name, body) VALUES (?, ?, ?)");
  ins.run(1, "parse parse tree", "node");
  ins.run(2, "parse", "token token");
  ins.run(3, "other", "words");
  const rows = db
    .prepare(`SELECT -bm25(t, 2, 1) AS s FROM t WHERE t MATCH '"parse" OR "token"' ORDER BY rowid`)
    .all() as { s: number }[];
  db.close();
  return rows.map((r) => r.s);
}

describe("bm25 over the FTS5 layouts the graph index could take", () => {
  it("scores a contentless full-detail table (the graph's), not a contentless column-detail one", () => {
    const full = scores("content='', contentless_delete=1");
    expect(full).toHaveLength(2);
    expect(full.some((s) => s > 0)).toBe(true);
    expect(scores("content='', contentless_delete=1, detail=column")).toEqual([0, 0]);
    expect(scores("detail=column").some((s) => s > 0)).toBe(true);
  });
});
