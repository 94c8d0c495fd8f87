// Symbol-level accuracy (sym_acc@k against gold_symbols) and the feature dump, through the real harness.
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { beforeAll, describe, expect, it } from "vitest";

import { aggregateSymbols, symbolRank } from "../../bench/localize/metrics.js";
import { renderLocalizeReport } from "../../bench/localize/report.js";
import { runLocalizeEval } from "../../bench/localize/run.js";
import type { Task, TaskView } from "../../bench/localize/tasks.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { bareClone, makeTinyRepo, type TinyRepo } from "./git-repo.js";

describe("symbol metrics", () => {
  it("ranks the first gold symbol, ignoring a leading ./", () => {
    const ranked = ["a.py::f", "./b.py::C.m", "b.py::C.n"];
    expect(symbolRank(ranked, ["b.py::C.n", "b.py::C.m"])).toBe(2);
    expect(symbolRank(ranked, ["c.py::g"])).toBeNull();
  });

  it("averages sym_acc@1/5/10 over the tasks given", () => {
    expect(aggregateSymbols([1, 3, 7, null])).toEqual({
      n_tasks: 4,
      "sym_acc@1": 0.25,
      "sym_acc@5": 0.5,
      "sym_acc@10": 0.75,
    });
    expect(aggregateSymbols([])).toEqual({ n_tasks: 0, "sym_acc@1": 0, "sym_acc@5": 0, "sym_acc@10": 0 });
  });
});

let repo: TinyRepo;
let reposDir: string;
beforeAll(() => {
  reposDir = tmpDir();
  repo = makeTinyRepo(tmpDir(), "tiny");
  bareClone(repo.work, join(reposDir, "acme+tiny", "repo"));
});

describe("runLocalizeEval with symbols and a dump", () => {
  it("scores sym_acc only where a task has gold symbols, dumps labelled candidates, never shows gold to ranking", async () => {
    const [c1] = repo.commits;
    const tasks: Task[] = [
      {
        id: "s1",
        repo: "acme/tiny",
        commit: c1!,
        query: "parser breaks",
        gold: ["src/app/parser.py"],
        gold_symbols: ["src/app/parser.py::Parser.parse"],
      },
      { id: "s2", repo: "acme/tiny", commit: c1!, query: "setup", gold: ["setup.py"], gold_symbols: [] },
      { id: "s3", repo: "acme/tiny", commit: c1!, query: "setup again", gold: ["setup.py"] },
    ];
    const seen: TaskView[] = [];
    const dump = join(tmpDir(), "out", "dump.jsonl");
    const report = await runLocalizeEval({
      tasks,
      reposDir,
      cacheDir: tmpDir(),
      logger: silentLogger,
      rungs: ["only"],
      prepare: async (_tree, view) => {
        seen.push(view);
        return {};
      },
      rank: async () => ["src/app/parser.py", "setup.py"],
      rankSymbols: async () => ["src/app/parser.py::Parser.__init__", "src/app/parser.py::Parser.parse"],
      signals: async () => [
        { path: "setup.py", ranks: { bm25: 1 } },
        { path: "src/app/parser.py", ranks: { bm25: 2 } },
      ],
      dumpFile: dump,
    });
    expect(report.symbols).toEqual({ n_tasks: 1, "sym_acc@1": 0, "sym_acc@5": 1, "sym_acc@10": 1 });
    expect(report.tasks.map((t) => t.sym_rank)).toEqual([2, undefined, undefined]);
    expect(renderLocalizeReport(report)).toContain("sym_acc@1 0.000, sym_acc@5 1.000, sym_acc@10 1.000");
    expect(seen.every((v) => !("gold" in v) && !("gold_symbols" in v))).toBe(true);
    const lines = readFileSync(dump, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(["s1", "s2", "s3"]);
    expect(lines[0].candidates).toEqual([
      { path: "setup.py", ranks: { bm25: 1 }, gold: false },
      { path: "src/app/parser.py", ranks: { bm25: 2 }, gold: true },
    ]);
    expect(lines[1].candidates.map((c: { gold: boolean }) => c.gold)).toEqual([true, false]);
  });
});
