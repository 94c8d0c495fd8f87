// Near-duplicate learnings merge and contradicting commitments are flagged however many units came in between:
// candidates are found through the unit index, not among the most recent rows.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { recordMemory } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { similarMemories } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { tmpDir } from "../helpers/tmp.js";

function store() {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const project = upsertProject(db, "p1", dir);
  return { db, projectId: project.id, root: dir };
}

/** 400 unrelated units of `category`, each with its own words. */
function filler(deps: ReturnType<typeof store>, category: "learning" | "commitment") {
  for (let i = 0; i < 400; i++)
    recordMemory(deps, { category, text: `module_${i} keeps handler_${i} apart from worker_${i} queue_${i}` });
}

describe("duplicate and contradiction checks through the index", () => {
  it("merges a learning into a near-duplicate recorded 400 learnings earlier", () => {
    const deps = store();
    const first = recordMemory(deps, {
      category: "learning",
      text: "The billing cache is keyed by tenant id and invoice period, refreshed nightly",
    });
    filler(deps, "learning");
    const again = recordMemory(deps, {
      category: "learning",
      text: "The billing cache is keyed by tenant id and invoice period, refreshed nightly!",
    });
    expect(again).toMatchObject({ merged: true, id: first.id });
  });

  it("flags a commitment that contradicts one recorded 400 commitments earlier", () => {
    const deps = store();
    const first = recordMemory(deps, { category: "commitment", text: "Always squash commits on the release branch" });
    filler(deps, "commitment");
    const clash = recordMemory(deps, { category: "commitment", text: "Never squash commits on the release branch" });
    expect(clash.outcome).toContain(`#${first.id}`);
  });

  it("merges a learning into its near-duplicate when 300 newer units of another category use the same words", () => {
    const deps = store();
    const text = "The billing cache is keyed by tenant id and invoice period, refreshed nightly";
    const first = recordMemory(deps, { category: "learning", text });
    for (let i = 0; i < 300; i++)
      recordMemory(deps, { category: "failure", text: `${text} failed on run_${i} with code_${i}` });
    const again = recordMemory(deps, { category: "learning", text: `${text}!` });
    expect(again).toMatchObject({ merged: true, id: first.id });
  });

  it("merges a learning into its near-duplicate when 100 newer learnings share most of its words but no more", () => {
    const deps = store();
    const text = "The billing cache is keyed by tenant id and invoice period, refreshed nightly";
    const first = recordMemory(deps, { category: "learning", text });
    for (let i = 0; i < 100; i++)
      recordMemory(deps, {
        category: "learning",
        text: `${text}; shard_${i} replica_${i} region_${i} owner_${i} alarm_${i} budget_${i} quota_${i} metric_${i}`,
      });
    const again = recordMemory(deps, { category: "learning", text: `${text}!` });
    expect(again).toMatchObject({ merged: true, id: first.id });
  });

  it("flags a contradiction by a long commitment whose first words the earlier one lacks", () => {
    const deps = store();
    const head = Array.from({ length: 32 }, (_, i) => `opening${i}`).join(" ");
    const tail = Array.from({ length: 36 }, (_, i) => `clause${i}`).join(" ");
    const first = recordMemory(deps, { category: "commitment", text: `Always ${tail}` });
    const clash = recordMemory(deps, { category: "commitment", text: `Never ${head} ${tail}` });
    expect(clash.outcome).toContain(`#${first.id}`);
  });

  it("finds a learning's near-duplicate in its project when another project holds 300 newer copies", () => {
    const deps = store();
    const other = { ...deps, projectId: upsertProject(deps.db, "p2", `${deps.root}/other`).id };
    const text = "The billing cache is keyed by tenant id and invoice period, refreshed nightly";
    const first = recordMemory(deps, { category: "learning", text });
    for (let i = 0; i < 300; i++) recordMemory(other, { category: "learning", text: `${text} in region_${i}` });
    const got = similarMemories(deps.db, deps.projectId, "learning", ["billing", "cache", "tenant", "invoice"], 0.5);
    expect(got.map((m) => m.id)).toContain(first.id);
  });

  it("returns the units of the asked category in force that could reach the overlap, and no others", () => {
    const deps = store();
    const fewer = recordMemory(deps, { category: "learning", text: "parser tables load lazily on first use" });
    const best = recordMemory(deps, { category: "learning", text: "tokenizer tables load lazily on first count" });
    const other = recordMemory(deps, {
      category: "commitment",
      text: "tokenizer tables load lazily on first count, always",
    });
    const got = similarMemories(deps.db, deps.projectId, "learning", ["tokenizer", "tables", "count"], 0.5);
    expect(got.map((m) => m.id)).toEqual([best.id]);
    // At a lower overlap the unit sharing one of the three words could qualify: it is a candidate too.
    const loose = similarMemories(deps.db, deps.projectId, "learning", ["tokenizer", "tables", "count"], 0.3);
    expect(loose.map((m) => m.id)).toEqual([best.id, fewer.id]);
    expect(loose.map((m) => m.id)).not.toContain(other.id);
    expect(similarMemories(deps.db, deps.projectId, "learning", [], 0.5)).toEqual([]);
  });

  it("finds nothing when the words no unit holds already exceed what a match may lack", () => {
    const deps = store();
    recordMemory(deps, { category: "learning", text: "tokenizer tables load lazily on first count" });
    const words = ["tokenizer", "tables", "count", "unheard1", "unheard2", "unheard3"];
    expect(similarMemories(deps.db, deps.projectId, "learning", words, 0.85)).toEqual([]);
    expect(similarMemories(deps.db, deps.projectId, "learning", words, 0.5).length).toBe(1);
  });

  it("ranks several candidates by BM25 over the rarer words, as a query over just their ids ranks them", () => {
    const deps = store();
    const common = ["account", "totals", "cache", "invoice", "tenant", "nightly"];
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 300; i++) {
      const n = 2 + Math.floor(rnd() * 6);
      const words = Array.from({ length: n }, () => common[Math.floor(rnd() * common.length)]!);
      if (rnd() < 0.1) words.push("ledger");
      if (rnd() < 0.15) words.push("rounding", "rounding");
      recordMemory(deps, { category: "reasoning", text: `${words.join(" ")} step_${i}` });
    }
    const got = similarMemories(deps.db, deps.projectId, "reasoning", ["ledger", "rounding", "invoice"], 0.25, {
      newest: 40,
    }).map((u) => u.id);
    expect(got).toHaveLength(40);
    // The rarer half plus one of the three words (ledger, rounding) ranks the candidates that hold them by BM25, as
    // one query over the candidates' ids does; the others follow, newest first.
    const ranked = deps.db
      .prepare(
        `SELECT rowid FROM memories_fts WHERE memories_fts MATCH '"ledger" OR "rounding"'
         AND rowid IN (SELECT value FROM json_each(?)) ORDER BY bm25(memories_fts), rowid DESC`,
      )
      .pluck()
      .all(JSON.stringify(got)) as number[];
    expect(ranked.length).toBeGreaterThan(5);
    const rest = got.filter((id) => !ranked.includes(id)).sort((x, y) => y - x);
    expect(got).toEqual([...ranked, ...rest]);
  });

  it("merges a learning written with combining marks (Devanagari, decomposed accents) into its near-duplicate", () => {
    const deps = store();
    // Devanagari vowel signs and a decomposed é are combining marks inside words, as the index holds them.
    const text = "कैश की कुंजी टेनेंट आईडी है और यह हर रात ताज़ा होता है, cafe\u0301 billing_cache";
    const first = recordMemory(deps, { category: "learning", text });
    filler(deps, "learning");
    const again = recordMemory(deps, { category: "learning", text: `${text}!` });
    expect(again).toMatchObject({ merged: true, id: first.id });
  });
});
