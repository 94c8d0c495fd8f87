// `memcards eval localize`: file localization on real tasks, every rung of the ladder on the same fresh index.
// The ranker sees only the tree and the query; `gold` stays in this module (see scripts/leakage-audit.mjs).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

import { z } from "zod";

import { createApp } from "../app.js";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import { buildGraph } from "../graph/job.js";
import type { Logger } from "../log.js";
import { resolveProjectRoot } from "../project/root.js";
import { createRanker, type Rung, RUNGS } from "../retrieval/rank.js";

export const Task = z.object({
  id: z.string(),
  repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, "owner/name"),
  commit: z.string().min(7),
  query: z.string(),
  gold: z.array(z.string()).min(1),
  git_dir: z.string().optional(),
});
export type Task = z.infer<typeof Task>;

/** Reads a JSONL task file; a bad line is an error naming its number and field. */
export function loadTasks(file: string): Task[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new AppError("NOT_FOUND", `cannot read tasks file ${file}: ${(err as Error).message}`);
  }
  const tasks: Task[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new AppError("BAD_INPUT", `${file}:${i + 1}: not valid JSON`);
    }
    const parsed = Task.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AppError("BAD_INPUT", `${file}:${i + 1}: ${issue?.path.join(".") || "line"}: ${issue?.message}`);
    }
    tasks.push(parsed.data);
  });
  return tasks;
}

/** Finds the git directory holding a task's repository. */
export function findGitDir(task: Pick<Task, "repo" | "git_dir">, reposDir?: string): string {
  if (task.git_dir) {
    if (!existsSync(task.git_dir)) throw new AppError("NOT_FOUND", `git_dir ${task.git_dir} does not exist`);
    return task.git_dir;
  }
  const [owner, name] = task.repo.split("/") as [string, string];
  const tried: string[] = [];
  if (reposDir) {
    for (const c of [
      join(reposDir, `${owner}+${name}`, "repo"),
      join(reposDir, `${owner}+${name}`),
      join(reposDir, owner, name),
      join(reposDir, name),
      join(reposDir, `${name}.git`),
    ]) {
      tried.push(c);
      if (existsSync(join(c, "HEAD")) || existsSync(join(c, ".git")))
        return existsSync(join(c, ".git")) ? join(c, ".git") : c;
    }
  }
  throw new AppError(
    "NOT_FOUND",
    `no git repository for ${task.repo}${reposDir ? ` under ${reposDir} (tried ${tried.join(", ")})` : ": pass --repos DIR or give git_dir"}`,
  );
}

function run(cmd: string, args: string[], opts: { cwd?: string; input?: NodeJS.ReadableStream } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd: opts.cwd, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("error", reject);
    p.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args[0]} failed: ${err.trim()}`))));
  });
}

/** The tree of `commit`, extracted once into `cacheDir` (atomically: a killed run never leaves half a tree). */
export async function materializeTree(gitDir: string, repo: string, commit: string, cacheDir: string): Promise<string> {
  const out = join(cacheDir, `${repo.replace("/", "+")}@${commit.slice(0, 12)}`);
  if (existsSync(out)) return out;
  mkdirSync(cacheDir, { recursive: true });
  const part = `${out}.part-${process.pid}`;
  rmSync(part, { recursive: true, force: true });
  mkdirSync(part);
  try {
    await run("git", ["--git-dir", gitDir, "cat-file", "-e", `${commit}^{commit}`]).catch(() => {
      throw new AppError("NOT_FOUND", `commit ${commit} is not in ${gitDir}`);
    });
    await run("sh", ["-c", 'git --git-dir="$0" archive "$1" | tar -x -C "$2"', gitDir, commit, part]);
    renameSync(part, out);
  } catch (err) {
    rmSync(part, { recursive: true, force: true });
    throw err;
  }
  return out;
}

// ---- metrics ----

export const RungMetrics = z.object({
  "acc@1": z.number(),
  "acc@3": z.number(),
  "acc@5": z.number(),
  "acc@10": z.number(),
  "mrr@10": z.number(),
  "all_gold@5": z.number(),
  "coverage@50": z.number(),
  p50_ms: z.number(),
  p95_ms: z.number(),
});
export type RungMetrics = z.infer<typeof RungMetrics>;

export interface TaskOutcome {
  id: string;
  repo: string;
  gold: string[];
  /** Per rung: the ranked paths (top 50) and the query time. */
  runs: Record<string, { ranked: string[]; ms: number }>;
}

/** 1-based rank of the first gold file, or null. */
export function firstGoldRank(ranked: readonly string[], gold: readonly string[]): number | null {
  const g = new Set(gold);
  const i = ranked.findIndex((p) => g.has(p));
  return i < 0 ? null : i + 1;
}

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Per-task indicators for one rung. */
export function perTask(o: TaskOutcome, rung: string) {
  const run = o.runs[rung];
  const ranked = run?.ranked ?? [];
  const r = firstGoldRank(ranked, o.gold);
  const top5 = new Set(ranked.slice(0, 5));
  return {
    rank: r,
    acc1: r !== null && r <= 1 ? 1 : 0,
    acc3: r !== null && r <= 3 ? 1 : 0,
    acc5: r !== null && r <= 5 ? 1 : 0,
    acc10: r !== null && r <= 10 ? 1 : 0,
    rr10: r !== null && r <= 10 ? 1 / r : 0,
    allGold5: o.gold.every((g) => top5.has(g)) ? 1 : 0,
    cov50: r !== null && r <= 50 ? 1 : 0,
    ms: run?.ms ?? 0,
  };
}

export function metrics(outcomes: readonly TaskOutcome[], rung: string): RungMetrics {
  const t = outcomes.map((o) => perTask(o, rung));
  return {
    "acc@1": r3(mean(t.map((x) => x.acc1))),
    "acc@3": r3(mean(t.map((x) => x.acc3))),
    "acc@5": r3(mean(t.map((x) => x.acc5))),
    "acc@10": r3(mean(t.map((x) => x.acc10))),
    "mrr@10": r3(mean(t.map((x) => x.rr10))),
    "all_gold@5": r3(mean(t.map((x) => x.allGold5))),
    "coverage@50": r3(mean(t.map((x) => x.cov50))),
    p50_ms:
      Math.round(
        quantile(
          t.map((x) => x.ms),
          0.5,
        ) * 10,
      ) / 10,
    p95_ms:
      Math.round(
        quantile(
          t.map((x) => x.ms),
          0.95,
        ) * 10,
      ) / 10,
  };
}

/** Deterministic PRNG for the bootstrap. */
function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Paired bootstrap 95% interval of mean(b − a) over tasks (resampling tasks, `n` times, seeded). */
export function pairedBootstrap(a: readonly number[], b: readonly number[], n = 2000, seed = 1) {
  const d = a.map((x, i) => b[i]! - x);
  const rand = mulberry32(seed);
  const means: number[] = [];
  for (let k = 0; k < n; k++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor(rand() * d.length)]!;
    means.push(d.length ? s / d.length : 0);
  }
  means.sort((x, y) => x - y);
  return {
    mean_diff: r3(mean(d)),
    lo: r3(means[Math.floor(0.025 * n)] ?? 0),
    hi: r3(means[Math.min(n - 1, Math.floor(0.975 * n))] ?? 0),
  };
}

export interface LocalizeReport {
  overall: Record<string, RungMetrics>;
  by_repo: Record<string, Record<string, RungMetrics>>;
  tasks: { id: string; repo: string; gold: string[]; ranks: Record<string, number | null> }[];
  rungs: string[];
  diffs: Record<
    string,
    { vs: string; "acc@1": ReturnType<typeof pairedBootstrap>; "mrr@10": ReturnType<typeof pairedBootstrap> }
  >;
  n_tasks: number;
  errors: { id: string; message: string }[];
}

export function buildReport(
  outcomes: TaskOutcome[],
  rungs: readonly string[],
  errors: LocalizeReport["errors"],
): LocalizeReport {
  const overall = Object.fromEntries(rungs.map((r) => [r, metrics(outcomes, r)]));
  const repos = [...new Set(outcomes.map((o) => o.repo))].sort();
  const by_repo = Object.fromEntries(
    repos.map((repo) => {
      const os = outcomes.filter((o) => o.repo === repo);
      return [repo, Object.fromEntries(rungs.map((r) => [r, metrics(os, r)]))];
    }),
  );
  const diffs: LocalizeReport["diffs"] = {};
  for (let i = 1; i < rungs.length; i++) {
    const prev = rungs[i - 1]!;
    const cur = rungs[i]!;
    const a = outcomes.map((o) => perTask(o, prev));
    const b = outcomes.map((o) => perTask(o, cur));
    diffs[cur] = {
      vs: prev,
      "acc@1": pairedBootstrap(
        a.map((x) => x.acc1),
        b.map((x) => x.acc1),
      ),
      "mrr@10": pairedBootstrap(
        a.map((x) => x.rr10),
        b.map((x) => x.rr10),
      ),
    };
  }
  return {
    overall,
    by_repo,
    tasks: outcomes.map((o) => ({
      id: o.id,
      repo: o.repo,
      gold: o.gold,
      ranks: Object.fromEntries(rungs.map((r) => [r, perTask(o, r).rank])),
    })),
    rungs: [...rungs],
    diffs,
    n_tasks: outcomes.length,
    errors,
  };
}

/** What the ranking side receives: never the gold files. */
export type TaskView = Omit<Task, "gold">;

/** Runs every rung on every task: materialize, index into a fresh store, rank. */
export async function runLocalize(opts: {
  tasks: Task[];
  reposDir?: string;
  cacheDir: string;
  config: Config;
  logger: Logger;
  rungs?: readonly Rung[];
  onTask?: (i: number, n: number, id: string, note: string) => void;
}): Promise<LocalizeReport> {
  const rungs = opts.rungs ?? RUNGS;
  const outcomes: TaskOutcome[] = [];
  const errors: LocalizeReport["errors"] = [];
  for (const [i, task] of opts.tasks.entries()) {
    const { gold, ...view } = task;
    try {
      const runs = await rankTask(view, opts, rungs);
      outcomes.push({ id: task.id, repo: task.repo, gold, runs });
      const r = firstGoldRank(runs[rungs[rungs.length - 1]!]?.ranked ?? [], gold);
      opts.onTask?.(i + 1, opts.tasks.length, task.id, `rank ${r ?? "-"}`);
    } catch (err) {
      errors.push({ id: task.id, message: (err as Error).message });
      opts.onTask?.(i + 1, opts.tasks.length, task.id, `error: ${(err as Error).message}`);
    }
  }
  return buildReport(outcomes, rungs, errors);
}

async function rankTask(
  task: TaskView,
  opts: { reposDir?: string; cacheDir: string; config: Config; logger: Logger },
  rungs: readonly Rung[],
): Promise<TaskOutcome["runs"]> {
  if (!task.query.trim()) throw new AppError("BAD_INPUT", "empty query");
  const gitDir = findGitDir(task, opts.reposDir);
  const tree = await materializeTree(gitDir, task.repo, task.commit, join(opts.cacheDir, "trees"));
  const dbDir = join(opts.cacheDir, "stores", task.id);
  rmSync(dbDir, { recursive: true, force: true });
  const config: Config = { ...opts.config, root: tree, db: join(dbDir, "memcards.db") };
  const location = resolveProjectRoot({ explicit: tree, cwd: tree, userDir: config.userDir });
  const app = createApp(config, location, opts.logger);
  try {
    await buildGraph(app);
    const ranker = createRanker(app.db, {
      embedder: app.embedding.embedder,
      vectorsEnabled: app.embedding.vectorsEnabled,
    });
    const runs: TaskOutcome["runs"] = {};
    for (const rung of rungs) {
      const t = performance.now();
      const ranked = await ranker.rank(task.query, rung, 50);
      runs[rung] = { ranked: ranked.map((r) => r.path), ms: performance.now() - t };
    }
    return runs;
  } finally {
    await app.close();
    rmSync(dbDir, { recursive: true, force: true });
  }
}

export function renderLocalize(r: LocalizeReport): string {
  const cols = [
    "acc@1",
    "acc@3",
    "acc@5",
    "acc@10",
    "mrr@10",
    "all_gold@5",
    "coverage@50",
    "p50_ms",
    "p95_ms",
  ] as const;
  const lines = [
    `${r.n_tasks} tasks${r.errors.length ? `, ${r.errors.length} failed (see errors)` : ""}`,
    "",
    `| rung | ${cols.join(" | ")} | Δacc@1 vs below [95% CI] | Δmrr@10 [95% CI] |`,
    `|---|${cols.map(() => "---").join("|")}|---|---|`,
  ];
  for (const rung of r.rungs) {
    const m = r.overall[rung]!;
    const d = r.diffs[rung];
    const ci = (x: { mean_diff: number; lo: number; hi: number }) =>
      `${x.mean_diff >= 0 ? "+" : ""}${x.mean_diff} [${x.lo}, ${x.hi}]`;
    lines.push(
      `| ${rung} | ${cols.map((c) => m[c]).join(" | ")} | ${d ? ci(d["acc@1"]) : ""} | ${d ? ci(d["mrr@10"]) : ""} |`,
    );
  }
  lines.push("", "| repository | " + r.rungs.map((x) => `${x} acc@1 / mrr@10`).join(" | ") + " |");
  lines.push("|---|" + r.rungs.map(() => "---").join("|") + "|");
  for (const [repo, byRung] of Object.entries(r.by_repo)) {
    lines.push(`| ${repo} | ${r.rungs.map((x) => `${byRung[x]!["acc@1"]} / ${byRung[x]!["mrr@10"]}`).join(" | ")} |`);
  }
  for (const e of r.errors) lines.push(`error ${e.id}: ${e.message}`);
  return lines.join("\n");
}
