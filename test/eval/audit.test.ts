// Leakage audit: the real ranking code passes; planted leaks of every kind are caught with file and line.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

import { auditRankingCode, formatAuditProblems, RANKING_DIRS } from "../../bench/localize/audit.js";
import { tmpDir } from "../helpers/tmp.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function plant(files: Record<string, string>): string {
  const dir = tmpDir();
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}

describe("auditRankingCode", () => {
  it("passes on this repository's ranking code and everything the ranker depends on", () => {
    expect(RANKING_DIRS).toEqual(
      expect.arrayContaining(["src/retrieval", "src/graph", "src/repo", "src/storage", "src/text", "src/embeddings"]),
    );
    expect(formatAuditProblems(auditRankingCode({ root }))).toBe("");
  });

  it("catches gold in any spelling, imports of the evaluation, and the dev task files", () => {
    const dir = plant({
      "src/retrieval/a.ts": [
        "const goldFiles = task.gold;", // 1
        "const x = GOLD_SET.has(p);", // 2
        "// uses the golden_patch", // 3
        'import { y } from "../eval/localize.js";', // 4
        'const z = await import("../../bench/localize/run.js");', // 5
        'export * from "../eval/localize/metrics.js";', // 6
        'readFileSync("../shared/data/swebench-verified-dev.jsonl");', // 7
        "const marigold = goldilocks + 1; // unrelated words pass", // 8
        'import { rank } from "./rank.js";', // 9
      ].join("\n"),
      "src/graph/deep/b.mjs": 'const m = require("memcards/dist/eval/localize.js");\n',
      "src/eval/localize.ts": "export const gold = 1; // the evaluation itself is not scanned\n",
      "src/retrieval/notes.md": "gold is fine in prose outside source files\n",
    });
    const problems = auditRankingCode({ root: dir, dirs: ["src/retrieval", "src/graph"] });
    expect(problems.map((p) => `${p.file}:${p.line}:${p.rule}`)).toEqual([
      "src/retrieval/a.ts:1:gold-identifier",
      "src/retrieval/a.ts:2:gold-identifier",
      "src/retrieval/a.ts:3:gold-identifier",
      "src/retrieval/a.ts:4:eval-import",
      "src/retrieval/a.ts:5:eval-import",
      "src/retrieval/a.ts:6:eval-import",
      "src/retrieval/a.ts:7:dev-data",
      "src/graph/deep/b.mjs:1:eval-import",
    ]);
    expect(formatAuditProblems(problems)).toContain(
      "src/retrieval/a.ts:1: gold-identifier: const goldFiles = task.gold;",
    );
  });

  it("refuses a folder that does not exist instead of passing", () => {
    expect(() => auditRankingCode({ root: tmpDir(), dirs: ["src/retreival"] })).toThrow(/is not a folder/);
  });
});
