// Recall reads only the units it shows: each section asks for its own few units plus as many as earlier sections
// already showed, so a unit shown above never leaves a later section short, and a large store costs no more.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { expect, it } from "vitest";

import { recall } from "../../src/memory/service.js";
import { recordMemory } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { tmpDir } from "../helpers/tmp.js";

function section(markdown: string, title: string): string[] {
  const block = markdown.split("\n\n").find((b) => b.startsWith(`## ${title}`));
  return block ? block.split("\n").slice(1) : [];
}

it("fills the failures section with failures not shown above, however many the work in progress took", () => {
  const dir = tmpDir();
  execFileSync("git", ["init", "-q", "-b", "feature/ledger"], { cwd: dir });
  writeFileSync(join(dir, "ledger.py"), "x = 1\n");
  const db = openDatabase(join(dir, "m.db"));
  const deps = { db, projectId: upsertProject(db, "p1", dir).id, root: dir };
  // Older failures about other code, then newer ones about the changed file: the newest failures are the ones the
  // work in progress shows first.
  for (let i = 0; i < 10; i++)
    recordMemory(deps, { category: "failure", text: `queue_${i} worker_${i} crashed on an empty batch_${i}` });
  for (let i = 0; i < 8; i++)
    recordMemory(deps, {
      category: "failure",
      text: `ledger.py rounding_${i} failed on account_${i} totals`,
      files: ["ledger.py"],
    });
  const r = recall(deps, { budgetTokens: 4000 });
  const work = section(r.markdown, "About the work in progress");
  const failures = section(r.markdown, "Recent failures and fixes");
  expect(work.filter((l) => l.includes("ledger.py")).length).toBeGreaterThanOrEqual(6);
  expect(failures).toHaveLength(6);
  const ids = (lines: string[]) => lines.map((l) => /\(#(\d+)\)$/.exec(l)?.[1]);
  for (const id of ids(failures)) expect(ids(work)).not.toContain(id);
  expect(new Set(r.units).size).toBe(r.units.length);
});
