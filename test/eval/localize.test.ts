// The localization evaluation: metrics against a hand-computed example, bootstrap, tasks, trees, leakage.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

// @ts-expect-error -- plain .mjs script without types
import { audit } from "../../scripts/leakage-audit.mjs";
import {
  buildReport,
  findGitDir,
  loadTasks,
  materializeTree,
  metrics,
  pairedBootstrap,
  type TaskOutcome,
} from "../../src/eval/localize.js";
import { tmpDir } from "../helpers/tmp.js";

const outcome = (id: string, gold: string[], ranked: Record<string, string[]>): TaskOutcome => ({
  id,
  repo: "o/r",
  gold,
  runs: Object.fromEntries(Object.entries(ranked).map(([k, v]) => [k, { ranked: v, ms: 10 }])),
});

describe("localize metrics", () => {
  // Three tasks: gold at rank 1; gold at rank 4 (two gold files, one at 2 and one beyond 5); gold absent.
  const outcomes = [
    outcome("t1", ["a.py"], { r: ["a.py", "b.py"] }),
    outcome("t2", ["d.py", "x.py"], { r: ["b.py", "x.py", "c.py", "d.py", "e.py", "f.py"] }),
    outcome("t3", ["z.py"], { r: ["b.py"] }),
  ];
  it("matches a hand-computed example", () => {
    const m = metrics(outcomes, "r");
    expect(m["acc@1"]).toBe(0.333);
    expect(m["acc@3"]).toBe(0.667);
    expect(m["acc@5"]).toBe(0.667);
    expect(m["mrr@10"]).toBe(Math.round(((1 + 1 / 2 + 0) / 3) * 1000) / 1000);
    expect(m["all_gold@5"]).toBe(0.667);
    expect(m["coverage@50"]).toBe(0.667);
  });

  it("paired bootstrap: deterministic, an interval excluding 0 for a real gain and including 0 for noise", () => {
    const a = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const b = a.map((x, i) => (i % 2 === 0 ? 1 : x));
    const gain = pairedBootstrap(a, b);
    expect(gain).toEqual(pairedBootstrap(a, b));
    expect(gain.lo).toBeGreaterThan(0);
    const noise = pairedBootstrap(
      a,
      a.map((x, i) => (i % 10 === 0 ? 1 - x : x)),
    );
    expect(noise.lo).toBeLessThanOrEqual(0);
    expect(noise.hi).toBeGreaterThanOrEqual(0);
  });

  it("builds the report in the documented shape", () => {
    const r = buildReport(
      outcomes.map((o) => ({ ...o, runs: { ...o.runs, s: o.runs.r! } })),
      ["r", "s"],
      [{ id: "t4", message: "commit missing" }],
    );
    expect(Object.keys(r)).toEqual(["overall", "by_repo", "tasks", "rungs", "diffs", "n_tasks", "errors"]);
    expect(r.tasks[1]?.ranks).toEqual({ r: 2, s: 2 });
    expect(r.diffs.s?.vs).toBe("r");
    expect(r.by_repo["o/r"]?.r?.["acc@1"]).toBe(0.333);
  });
});

describe("tasks and trees", () => {
  it("names the line and field of a malformed task", () => {
    const f = join(tmpDir(), "t.jsonl");
    writeFileSync(
      f,
      '{"id":"a","repo":"o/r","commit":"abcdef1","query":"q","gold":["x"]}\n\n{"id":"b","repo":"o/r"}\n',
    );
    expect(() => loadTasks(f)).toThrow(/t\.jsonl:3: commit/);
    writeFileSync(f, "not json\n");
    expect(() => loadTasks(f)).toThrow(/t\.jsonl:1: not valid JSON/);
  });

  it("extracts a commit's tree once, and says clearly when the repository or commit is missing", async () => {
    const repos = tmpDir();
    const work = join(repos, "o+r");
    mkdirSync(work);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: work })
        .toString()
        .trim();
    git("init", "-q");
    writeFileSync(join(work, "a.py"), "def f():\n    return 1\n");
    git("add", "-A");
    git("commit", "-qm", "one");
    const commit = git("rev-parse", "HEAD");
    const gitDir = findGitDir({ repo: "o/r" }, repos);
    const cache = tmpDir();
    const tree = await materializeTree(gitDir, "o/r", commit, cache);
    expect(existsSync(join(tree, "a.py"))).toBe(true);
    expect(await materializeTree(gitDir, "o/r", commit, cache)).toBe(tree);
    await expect(materializeTree(gitDir, "o/r", "deadbeefdeadbeef", cache)).rejects.toThrow(
      /commit deadbeefdeadbeef is not in/,
    );
    expect(() => findGitDir({ repo: "o/missing" }, repos)).toThrow(/no git repository for o\/missing/);
  });

  it("leakage audit: no ranking code mentions gold files or imports the evaluation", () => {
    expect(audit()).toEqual([]);
  });
});
