// A near-duplicate older than the newest few hundred units that share its rarest words is still found: the units a
// check reads are bounded, but those it turns down do not use up what it may return.
import { join } from "node:path";

import { expect, it } from "vitest";

import { recordMemory } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { tmpDir } from "../helpers/tmp.js";

function store() {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  return { db, projectId: upsertProject(db, "p1", dir).id, root: dir };
}

it("merges a learning into its near-duplicate when 300 newer learnings share most of its words but no more", () => {
  const deps = store();
  const text = "The billing cache is keyed by tenant id and invoice period, refreshed nightly";
  const first = recordMemory(deps, { category: "learning", text });
  for (let i = 0; i < 300; i++)
    recordMemory(deps, {
      category: "learning",
      text: `${text}; shard_${i} replica_${i} region_${i} owner_${i} alarm_${i} budget_${i} quota_${i} metric_${i}`,
    });
  const again = recordMemory(deps, { category: "learning", text: `${text}!` });
  expect(again).toMatchObject({ merged: true, id: first.id });
});
