// The default summary budget follows what the session holds, within a cap and never under 10:1 compression; stats
// say how it was chosen, and a long session with many edited files keeps its whole ledger.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Sections } from "../../src/conversation/schema.js";
import { compressContext } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { emptySections } from "../../src/transcript/extraction/merge.js";
import { BUDGET_CONSTANTS, chooseBudget } from "../../src/transcript/rendering/budget.js";
import { claudeCodeSession, longSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

function holding(files: number, failures = 0, constraints = 0): Sections {
  const s = emptySections();
  for (let i = 0; i < files; i++) s.files[`src/f${i}.ts`] = [{ op: "edited", turn: `t${i}` }];
  for (let i = 0; i < failures; i++)
    s.failures.push({
      signature: `e${i}`,
      text: `Error ${i}`,
      category: "runtime error",
      turn: "t0",
      last_turn: "t0",
      count: 1,
    });
  for (let i = 0; i < constraints; i++) s.constraints.push({ text: `never ${i}`, turn: "t0" });
  return s;
}

describe("chooseBudget", () => {
  const cases: { name: string; s: Sections; tokens: number; want: (b: number) => boolean }[] = [
    { name: "a short session gets the floor", s: holding(0), tokens: 2_000, want: (b) => b === BUDGET_CONSTANTS.floor },
    {
      name: "a plain long session gets its proportional share",
      s: holding(1),
      tokens: 52_000,
      want: (b) => b === 5_200,
    },
    {
      name: "a session holding many files gets their cost, above the share",
      s: holding(15),
      tokens: 8_000,
      want: (b) => b > 800 && b <= 1_000,
    },
    { name: "never under 10:1", s: holding(400, 40, 40), tokens: 30_000, want: (b) => b === 3_000 },
    {
      name: "a short session may take up to the ceiling floor for what it holds",
      s: holding(30),
      tokens: 5_000,
      want: (b) => b === BUDGET_CONSTANTS.ceiling_floor,
    },
    { name: "never over the cap", s: holding(400, 40, 40), tokens: 400_000, want: (b) => b === BUDGET_CONSTANTS.cap },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const b = chooseBudget(c.s, c.tokens);
      expect(b.chosen_by).toBe("default");
      expect(c.want(b.tokens)).toBe(true);
    });
  }

  it("grows with the files a session edited", () => {
    const few = chooseBudget(holding(5), 6_000).tokens;
    const many = chooseBudget(holding(15), 6_000).tokens;
    expect(many).toBeGreaterThan(few);
    expect(chooseBudget(holding(60), 30_000).basis).toMatchObject({ files: 60, tokens_summarized: 30_000 });
  });

  it("the caller's budget wins and says so", () => {
    const b = chooseBudget(holding(60), 30_000, 900);
    expect(b).toMatchObject({ tokens: 900, chosen_by: "caller" });
  });
});

describe("compress_context's default budget", () => {
  it("keeps every edited file of a long session, at least 10:1, and reports how the budget was chosen", () => {
    const dir = tmpDir();
    const db = openDatabase(join(dir, "m.db"));
    const project = upsertProject(db, "test", dir);
    const path = join(dir, "many-files.jsonl");
    writeFileSync(path, claudeCodeSession(longSession(70, 40)));
    const r = compressContext({ db, projectId: project.id, root: dir, home: dir }, { transcriptPath: path });
    expect(r.stats.budget.chosen_by).toBe("default");
    expect(r.stats.budget.basis.files).toBeGreaterThanOrEqual(39);
    expect(r.stats.budget.basis.id_extra).toBeGreaterThan(10);
    const { need, proportional, ceiling } = r.stats.budget.basis;
    expect(r.stats.budget.tokens).toBe(Math.min(ceiling, Math.max(need, proportional)));
    expect(r.stats.ratio).toBeGreaterThanOrEqual(10);
    const ledger = r.summary.markdown.split("## Files Modified\n")[1]!.split("\n## ")[0]!;
    expect(ledger).not.toContain("more kept in the store");
    for (const f of Object.keys(r.summary.sections.files)) expect(ledger).toContain(f);
    const fixed = compressContext(
      { db, projectId: project.id, root: dir, home: dir },
      { transcriptPath: path, sessionId: "caller", budgetTokens: 800 },
    );
    expect(fixed.stats.budget).toMatchObject({ tokens: 800, chosen_by: "caller" });
  });
});
