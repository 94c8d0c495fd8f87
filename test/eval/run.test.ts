// The harness end to end on real git trees with fake rankers: the exact report shape, ranks, errors, no gold leak.
import { execFileSync } from "node:child_process";
import { readdirSync, renameSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

import { renderLocalizeReport } from "../../bench/localize/report.js";
import { type ProgressEvent, runLocalizeEval } from "../../bench/localize/run.js";
import type { Task, TaskView } from "../../bench/localize/tasks.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { bareClone, makeTinyRepo, type TinyRepo } from "./git-repo.js";

// The shape promised by the issue, written out independently of the source's schema.
const Metrics = z.strictObject({
  "acc@1": z.number().min(0).max(1),
  "acc@3": z.number().min(0).max(1),
  "acc@5": z.number().min(0).max(1),
  "acc@10": z.number().min(0).max(1),
  "mrr@10": z.number().min(0).max(1),
  "all_gold@5": z.number().min(0).max(1),
  "coverage@50": z.number().min(0).max(1),
  p50_ms: z.number().nonnegative(),
  p95_ms: z.number().nonnegative(),
});
const CI = z.strictObject({ mean_diff: z.number(), lo: z.number(), hi: z.number() });
const Report = z.strictObject({
  overall: z.record(z.string(), Metrics),
  by_repo: z.record(z.string(), z.record(z.string(), Metrics)),
  tasks: z.array(
    z.strictObject({
      id: z.string(),
      repo: z.string(),
      gold: z.array(z.string()),
      ranks: z.record(z.string(), z.number().int().min(1).nullable()),
      missing_files: z.number().int().min(1).optional(),
      missing_gold: z.array(z.string()).optional(),
    }),
  ),
  rungs: z.array(z.string()),
  diffs: z.record(z.string(), z.strictObject({ vs: z.string(), "acc@1": CI, "mrr@10": CI })),
  n_tasks: z.number().int(),
  errors: z.array(z.strictObject({ id: z.string(), message: z.string() })),
});

function listFiles(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? listFiles(root, p) : [relative(root, p).split(sep).join("/")];
  });
}

const stem = (p: string) => (p.split("/").pop() ?? p).replace(/\.\w+$/, "");

/** Three fake rungs: alphabetical, reverse alphabetical, and files named in the query first. */
function fakeRanker() {
  const views: TaskView[] = [];
  const calls: unknown[][] = [];
  let disposed = 0;
  return {
    views,
    calls,
    disposed: () => disposed,
    prepare: async (tree: string, view: TaskView) => {
      views.push(view);
      return { files: listFiles(tree).sort() };
    },
    rank: async (...args: [{ files: string[] }, string, string]) => {
      calls.push(args);
      const [ctx, rung, query] = args;
      if (rung === "alpha") return [...ctx.files];
      if (rung === "reverse") return [...ctx.files].reverse();
      await sleep(5);
      const words = new Set(query.toLowerCase().split(/\W+/));
      return [...ctx.files.filter((f) => words.has(stem(f))), ...ctx.files.filter((f) => !words.has(stem(f)))];
    },
    dispose: () => {
      disposed++;
    },
  };
}

let repo: TinyRepo;
let reposDir: string;
let otherGitDir: string;
beforeAll(() => {
  reposDir = tmpDir();
  repo = makeTinyRepo(tmpDir(), "tiny");
  bareClone(repo.work, join(reposDir, "acme+tiny", "repo"));
  otherGitDir = bareClone(repo.work, join(tmpDir(), "elsewhere.git"));
});

function tasks(): Task[] {
  const [c1, c2] = repo.commits;
  return [
    { id: "t1", repo: "acme/tiny", commit: c1, query: "parser breaks on headers", gold: ["src/app/parser.py"] },
    { id: "t2", repo: "acme/tiny", commit: c2, query: "cookies lost in sessions", gold: ["src/app/cookies.py"] },
    {
      id: "t3",
      repo: "acme/other",
      commit: c1,
      query: "setup metadata",
      gold: ["setup.py", "src/app/__init__.py"],
      git_dir: otherGitDir,
    },
    { id: "t4", repo: "acme/tiny", commit: "0".repeat(40), query: "missing commit", gold: ["setup.py"] },
    { id: "t5", repo: "acme/gone", commit: c1, query: "missing repository", gold: ["setup.py"] },
    { id: "t6", repo: "acme/tiny", commit: c1, query: "  \n", gold: ["setup.py"] },
  ];
}

describe("runLocalizeEval", () => {
  it("scores every rung on every task and reports in the documented shape", async () => {
    const fake = fakeRanker();
    const events: ProgressEvent[] = [];
    const report = await runLocalizeEval({
      tasks: tasks(),
      reposDir,
      cacheDir: tmpDir(),
      logger: silentLogger,
      rungs: ["alpha", "reverse", "query"],
      prepare: fake.prepare,
      rank: fake.rank,
      dispose: fake.dispose,
      onProgress: (e) => events.push(e),
    });

    expect(Report.parse(report)).toEqual(report);
    expect(Object.keys(report)).toEqual(["overall", "by_repo", "tasks", "rungs", "diffs", "n_tasks", "errors"]);
    expect(report.rungs).toEqual(["alpha", "reverse", "query"]);
    expect(Object.keys(report.overall)).toEqual(report.rungs);
    expect(Object.keys(report.by_repo)).toEqual(["acme/other", "acme/tiny"]);
    expect(report.n_tasks).toBe(3);

    // Trees: t1 and t3 at the first commit (5 files), t2 at the second (cookies.py added).
    expect(report.tasks).toEqual([
      { id: "t1", repo: "acme/tiny", gold: ["src/app/parser.py"], ranks: { alpha: 4, reverse: 2, query: 1 } },
      { id: "t2", repo: "acme/tiny", gold: ["src/app/cookies.py"], ranks: { alpha: 4, reverse: 3, query: 1 } },
      {
        id: "t3",
        repo: "acme/other",
        gold: ["setup.py", "src/app/__init__.py"],
        ranks: { alpha: 2, reverse: 3, query: 1 },
      },
    ]);
    expect(report.overall.alpha).toMatchObject({
      "acc@1": 0,
      "acc@3": 0.333,
      "acc@5": 1,
      "mrr@10": 0.333, // (1/4 + 1/4 + 1/2) / 3
      "all_gold@5": 1,
      "coverage@50": 1,
    });
    expect(report.overall.query).toMatchObject({ "acc@1": 1, "mrr@10": 1 });
    expect(report.overall.query!.p50_ms).toBeGreaterThanOrEqual(4);
    expect(report.by_repo["acme/tiny"]!.reverse).toMatchObject({ "acc@1": 0, "acc@3": 1, "mrr@10": 0.417 });

    expect(Object.keys(report.diffs)).toEqual(["reverse", "query"]);
    expect(report.diffs.reverse!.vs).toBe("alpha");
    expect(report.diffs.query).toEqual({
      vs: "reverse",
      "acc@1": { mean_diff: 1, lo: 1, hi: 1 },
      "mrr@10": { mean_diff: 0.611, lo: 0.5, hi: 0.667 },
    });

    // Failed tasks are listed in order, each with its reason, and counted nowhere else.
    expect(report.errors.map((e) => e.id)).toEqual(["t4", "t5", "t6"]);
    expect(report.errors[0]!.message).toMatch(/^materialize: commit 0{40} of acme\/tiny is not in /);
    expect(report.errors[1]!.message).toMatch(/^materialize: no git directory for acme\/gone under /);
    expect(report.errors[2]!.message).toMatch(/^empty query/);

    // The ranking side saw views without gold, and rank got only the context, the rung and the query.
    expect(fake.views.map((v) => Object.keys(v).sort())).toEqual([
      ["commit", "id", "query", "repo"],
      ["commit", "id", "query", "repo"],
      ["commit", "git_dir", "id", "query", "repo"],
    ]);
    for (const [i, v] of fake.views.entries()) {
      for (const g of tasks()[i]!.gold) expect(JSON.stringify(v)).not.toContain(g);
    }
    expect(fake.calls).toHaveLength(9);
    for (const call of fake.calls) {
      expect(call).toHaveLength(3);
      expect(typeof call[2]).toBe("string");
    }
    expect(fake.disposed()).toBe(3);

    expect(events.filter((e) => e.stage === "done").map((e) => e.id)).toEqual(["t1", "t2", "t3"]);
    expect(events.filter((e) => e.stage === "error").map((e) => e.id)).toEqual(["t4", "t5", "t6"]);
    expect(events.every((e) => e.total === 6)).toBe(true);
  });

  it("reports a task whose prepare or rank fails, disposes what was prepared, and keeps the rest", async () => {
    const fake = fakeRanker();
    const [t1, t2, t3] = tasks();
    const report = await runLocalizeEval({
      tasks: [t1!, t2!, t3!],
      reposDir,
      cacheDir: tmpDir(),
      logger: silentLogger,
      rungs: ["alpha", "query"],
      prepare: async (tree, view) => {
        if (view.id === "t2") throw new Error("index failed");
        return fake.prepare(tree, view);
      },
      rank: async (ctx, rung, query) => {
        if (query.startsWith("setup") && rung === "query") throw new Error("ranker crashed");
        return fake.rank(ctx, rung, query);
      },
      dispose: fake.dispose,
    });
    expect(report.n_tasks).toBe(1);
    expect(report.tasks.map((t) => t.id)).toEqual(["t1"]);
    expect(report.errors).toEqual([
      { id: "t2", message: "prepare: index failed" },
      { id: "t3", message: "rank: ranker crashed" },
    ]);
    expect(fake.disposed()).toBe(2);
  });

  it("gives the same intervals on a rerun, and refuses bad rung lists and repeated ids", async () => {
    const run = (rungs: string[], ts = tasks().slice(0, 3)) => {
      const fake = fakeRanker();
      return runLocalizeEval({ tasks: ts, reposDir, cacheDir: tmpDir(), logger: silentLogger, rungs, ...fake });
    };
    expect((await run(["alpha", "reverse"])).diffs).toEqual((await run(["alpha", "reverse"])).diffs);
    await expect(run([])).rejects.toThrow(/no rungs/);
    await expect(run(["alpha", "alpha"])).rejects.toThrow(/rung "alpha" is listed twice/);
    await expect(run(["alpha"], [tasks()[0]!, tasks()[0]!])).rejects.toThrow(/task id "t1" is used twice/);
  });
});

describe("a tree whose git directory lacks some files", () => {
  it("is scored, says per task how many files are absent, and names absent gold files", async () => {
    const repos = tmpDir();
    const bare = bareClone(repo.work, join(repos, "acme+tiny", "repo"));
    const oid = execFileSync("git", ["--git-dir", bare, "rev-parse", `${repo.commits[0]}:setup.py`])
      .toString()
      .trim();
    const loose = join(bare, "objects", oid.slice(0, 2), oid.slice(2));
    renameSync(loose, `${loose}.hidden`);
    const warnings: string[] = [];
    const logger = {
      ...silentLogger,
      warn: (m: string, e?: Record<string, unknown>) => warnings.push(m + JSON.stringify(e)),
    };
    const [t1, , t3] = tasks();
    const report = await runLocalizeEval({
      tasks: [t1!, { ...t3!, repo: "acme/tiny", git_dir: undefined }],
      reposDir: repos,
      cacheDir: tmpDir(),
      logger,
      rungs: ["alpha"],
      ...fakeRanker(),
    });
    expect(Report.parse(report)).toEqual(report);
    expect(report.errors).toEqual([]);
    // setup.py is gone from the tree, so t3 is found by its other gold file only.
    expect(report.tasks).toEqual([
      {
        id: "t1",
        repo: "acme/tiny",
        gold: ["src/app/parser.py"],
        ranks: { alpha: 3 },
        missing_files: 1,
        missing_gold: [],
      },
      {
        id: "t3",
        repo: "acme/tiny",
        gold: ["setup.py", "src/app/__init__.py"],
        ranks: { alpha: 2 },
        missing_files: 1,
        missing_gold: ["setup.py"],
      },
    ]);
    expect(warnings.filter((w) => /gold files of the task are absent/.test(w))).toEqual([
      expect.stringContaining('"id":"t3","files":["setup.py"]'),
    ]);
    const text = renderLocalizeReport(report);
    expect(text).toContain("- t1: 1 file absent\n");
    expect(text).toContain("- t3: 1 file absent, gold among them: setup.py");
  });
});

describe("renderLocalizeReport", () => {
  it("shows every rung's metrics, each step's interval, each repository and each failure", async () => {
    const fake = fakeRanker();
    const report = await runLocalizeEval({
      tasks: tasks(),
      reposDir,
      cacheDir: tmpDir(),
      logger: silentLogger,
      rungs: ["alpha", "reverse", "query"],
      ...fake,
    });
    const text = renderLocalizeReport(report);
    expect(text).toContain("3 tasks scored, 3 failed and excluded");
    expect(text).toContain(
      "| rung | acc@1 | acc@3 | acc@5 | acc@10 | mrr@10 | all_gold@5 | coverage@50 | p50_ms | p95_ms |",
    );
    expect(text).toMatch(
      /\| alpha \| 0\.000 \| 0\.333 \| 1\.000 \| 1\.000 \| 0\.333 \| 1\.000 \| 1\.000 \| \d+\.\d \|/,
    );
    expect(text).toContain("| query | reverse | +1.000 [+1.000, +1.000] ▲ | +0.611 [+0.500, +0.667] ▲ |");
    expect(text).toContain("| repository | n | alpha | reverse | query |");
    expect(text).toContain("| acme/tiny | 2 | 0.000 / 1.000 / 0.250 |");
    expect(text).toMatch(/- t4: materialize: commit 0{40}/);
  });
});
