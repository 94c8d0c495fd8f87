// The localization harness: every rung ranks every task on the same prepared tree; gold stays on this side.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

import { z } from "zod";

import { AppError } from "../../src/errors.js";
import type { Logger } from "../../src/log.js";
import { type BootstrapOptions, Interval, pairedBootstrap } from "./bootstrap.js";
import { materializeTree } from "./materialize.js";
import {
  aggregate,
  aggregateSymbols,
  normalizeRanked,
  RungMetrics,
  scoreTask,
  SymbolMetrics,
  symbolRank,
  type TaskScore,
} from "./metrics.js";
import { type Task, type TaskView, taskView } from "./tasks.js";

/** The report of `memcards eval localize`, also its `--json` output. */
export const LocalizeReport = z.strictObject({
  overall: z.record(z.string(), RungMetrics),
  by_repo: z.record(z.string(), z.record(z.string(), RungMetrics)),
  tasks: z.array(
    z.strictObject({
      id: z.string(),
      repo: z.string(),
      gold: z.array(z.string()),
      ranks: z.record(z.string(), z.number().int().positive().nullable()),
      /** Rank of the first gold symbol among the ranked symbols, where the task names gold symbols. */
      sym_rank: z.number().int().positive().nullable().optional(),
      /** Files of the tree whose content the git directory lacks, left out of the tree (absent when none). */
      missing_files: z.number().int().positive().optional(),
      /** The task's gold files among them: still scored, but no rung could read them. */
      missing_gold: z.array(z.string()).optional(),
    }),
  ),
  /** sym_acc@1/5/10 over the tasks with gold symbols (absent when none has them). */
  symbols: SymbolMetrics.optional(),
  rungs: z.array(z.string()),
  /** Each rung but the first against the rung before it: paired bootstrap intervals of the difference. */
  diffs: z.record(z.string(), z.strictObject({ vs: z.string(), "acc@1": Interval, "mrr@10": Interval })),
  n_tasks: z.number().int().nonnegative(),
  errors: z.array(z.strictObject({ id: z.string(), message: z.string() })),
});
export type LocalizeReport = z.infer<typeof LocalizeReport>;

/** A task's progress: its tree is ready, its index is ready, it is scored, or it failed (and is excluded). */
export interface ProgressEvent {
  index: number;
  total: number;
  id: string;
  stage: "tree" | "prepared" | "done" | "error";
  message: string;
}

export interface LocalizeEvalOptions<Ctx> {
  tasks: readonly Task[];
  reposDir?: string;
  cacheDir: string;
  logger: Logger;
  /** Rung names in ladder order; each is compared with the one before it. */
  rungs: readonly string[];
  /** Builds whatever ranking needs from the tree (e.g. a fresh index). Sees the task without its gold files. */
  prepare: (treeDir: string, task: TaskView) => Promise<Ctx>;
  /** Ranked repo-relative POSIX paths for the query, best first. The harness times each call. */
  rank: (ctx: Ctx, rung: string, query: string) => Promise<readonly string[]>;
  dispose?: (ctx: Ctx) => Promise<void> | void;
  /** Ranked symbol ids (`path::Class.method`), best first: scored against `gold_symbols` where a task has them. */
  rankSymbols?: (ctx: Ctx, query: string) => Promise<readonly string[]>;
  /**
   * Every candidate file with its per-channel features; with `dumpFile`, one JSONL line per task is written
   * (the candidates labelled against gold here, on the harness side) for fitting the fusion offline.
   */
  signals?: (ctx: Ctx, query: string) => Promise<readonly { path: string }[]>;
  /** Every candidate symbol with its features; dumped (labelled against `gold_symbols`) beside the files. */
  symbolSignals?: (ctx: Ctx, query: string) => Promise<readonly { id: string }[]>;
  dumpFile?: string;
  onProgress?: (event: ProgressEvent) => void;
  bootstrap?: BootstrapOptions;
}

/** One scored task: per rung its score and its query time. */
export interface TaskOutcome {
  id: string;
  repo: string;
  gold: string[];
  runs: Record<string, { score: TaskScore; ms: number }>;
  symRank?: number | null;
  /** Files left out of the tree because the git directory lacks their content. */
  missing?: readonly string[];
}

const rankOf = (runs: TaskOutcome["runs"]) =>
  Object.fromEntries(Object.entries(runs).map(([r, x]) => [r, x.score.rank]));

/** The gold files among the files left out of the tree. */
function missingGold(missing: readonly string[], gold: readonly string[]): string[] {
  const left = new Set(normalizeRanked(missing));
  return normalizeRanked(gold).filter((g) => left.has(g));
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

function checkInputs(tasks: readonly Task[], rungs: readonly string[]): void {
  if (rungs.length === 0) throw new AppError("BAD_INPUT", "no rungs to evaluate; name at least one");
  const seenRung = new Set<string>();
  for (const r of rungs) {
    if (!r) throw new AppError("BAD_INPUT", "a rung name is empty");
    if (seenRung.has(r)) throw new AppError("BAD_INPUT", `rung "${r}" is listed twice`);
    seenRung.add(r);
  }
  const seenId = new Set<string>();
  for (const t of tasks) {
    if (seenId.has(t.id)) throw new AppError("BAD_INPUT", `task id "${t.id}" is used twice; ids must be unique`);
    seenId.add(t.id);
  }
}

/**
 * Runs every rung on every task: materialize the tree, `prepare` once, `rank` per rung (timed), score
 * against gold. A task that fails at any step is listed in `errors` and left out of every metric.
 */
export async function runLocalizeEval<Ctx>(opts: LocalizeEvalOptions<Ctx>): Promise<LocalizeReport> {
  const { tasks, rungs, logger } = opts;
  checkInputs(tasks, rungs);
  const outcomes: TaskOutcome[] = [];
  const errors: LocalizeReport["errors"] = [];
  const total = tasks.length;
  if (opts.dumpFile) {
    mkdirSync(dirname(opts.dumpFile), { recursive: true });
    writeFileSync(opts.dumpFile, "");
  }
  for (const [i, task] of tasks.entries()) {
    const progress = (stage: ProgressEvent["stage"], text: string) =>
      opts.onProgress?.({ index: i + 1, total, id: task.id, stage, message: text });
    const fail = (text: string) => {
      errors.push({ id: task.id, message: text });
      logger.warn("localize task failed", { id: task.id, message: text });
      progress("error", text);
    };
    if (!task.query.trim()) {
      fail("empty query: the task gives no text to rank by");
      continue;
    }
    const view = taskView(task);
    let tree: string;
    let missing: string[];
    try {
      const started = performance.now();
      const m = await materializeTree(view, { reposDir: opts.reposDir, cacheDir: opts.cacheDir, logger });
      tree = m.dir;
      missing = m.missing;
      const absentGold = missingGold(missing, task.gold);
      if (absentGold.length) {
        logger.warn("gold files of the task are absent from the git directory; no rung can read them", {
          id: task.id,
          files: absentGold,
        });
      }
      const left = missing.length ? `, ${missing.length} files absent from the git directory left out` : "";
      progress("tree", `${m.cached ? "cached" : "extracted"} in ${Math.round(performance.now() - started)} ms${left}`);
    } catch (err) {
      fail(`materialize: ${message(err)}`);
      continue;
    }
    let ctx: Ctx;
    try {
      const started = performance.now();
      ctx = await opts.prepare(tree, view);
      progress("prepared", `prepared in ${Math.round(performance.now() - started)} ms`);
    } catch (err) {
      fail(`prepare: ${message(err)}`);
      continue;
    }
    try {
      const runs: TaskOutcome["runs"] = {};
      for (const rung of rungs) {
        const started = performance.now();
        const ranked = await opts.rank(ctx, rung, view.query);
        const ms = performance.now() - started;
        if (!Array.isArray(ranked) || !ranked.every((p) => typeof p === "string")) {
          throw new AppError("INTERNAL", `rung ${rung} returned something other than a list of paths`);
        }
        runs[rung] = { score: scoreTask(ranked, task.gold), ms };
      }
      const outcome: TaskOutcome = { id: task.id, repo: task.repo, gold: [...task.gold], runs };
      if (missing.length) outcome.missing = missing;
      if (opts.rankSymbols && task.gold_symbols?.length) {
        outcome.symRank = symbolRank(await opts.rankSymbols(ctx, view.query), task.gold_symbols);
      }
      if (opts.signals && opts.dumpFile) {
        const goldSet = new Set(normalizeRanked(task.gold));
        const candidates = (await opts.signals(ctx, view.query)).map((c) => ({ ...c, gold: goldSet.has(c.path) }));
        const line: Record<string, unknown> = { id: task.id, repo: task.repo, rung_ranks: rankOf(runs), candidates };
        if (opts.symbolSignals && task.gold_symbols?.length) {
          const goldSyms = task.gold_symbols;
          line.symbols = (await opts.symbolSignals(ctx, view.query)).map((c) => ({
            ...c,
            gold: symbolRank([c.id], goldSyms) === 1,
          }));
        }
        appendFileSync(opts.dumpFile, JSON.stringify(line) + "\n");
      }
      outcomes.push(outcome);
      progress("done", rungs.map((r) => `${r} ${runs[r]!.score.rank ?? "-"}`).join(", "));
    } catch (err) {
      fail(`rank: ${message(err)}`);
    } finally {
      try {
        await opts.dispose?.(ctx);
      } catch (err) {
        logger.warn("dispose failed", { id: task.id, message: message(err) });
      }
    }
  }
  return buildLocalizeReport(outcomes, rungs, errors, opts.bootstrap);
}

function metricsOf(outcomes: readonly TaskOutcome[], rung: string): RungMetrics {
  return aggregate(
    outcomes.map((o) => o.runs[rung]!.score),
    outcomes.map((o) => o.runs[rung]!.ms),
  );
}

/** Assembles the report from scored tasks (every outcome must hold every rung). */
export function buildLocalizeReport(
  outcomes: readonly TaskOutcome[],
  rungs: readonly string[],
  errors: LocalizeReport["errors"],
  bootstrap: BootstrapOptions = {},
): LocalizeReport {
  const overall = Object.fromEntries(rungs.map((r) => [r, metricsOf(outcomes, r)]));
  const repos = [...new Set(outcomes.map((o) => o.repo))].sort();
  const by_repo = Object.fromEntries(
    repos.map((repo) => {
      const mine = outcomes.filter((o) => o.repo === repo);
      return [repo, Object.fromEntries(rungs.map((r) => [r, metricsOf(mine, r)]))];
    }),
  );
  const symRanks = outcomes.flatMap((o) => (o.symRank !== undefined ? [o.symRank] : []));
  const diffs: LocalizeReport["diffs"] = {};
  rungs.forEach((rung, i) => {
    if (i === 0) return;
    const below = rungs[i - 1]!;
    const values = (r: string, k: "acc@1" | "rr@10") => outcomes.map((o) => o.runs[r]!.score[k]);
    diffs[rung] = {
      vs: below,
      "acc@1": pairedBootstrap(values(below, "acc@1"), values(rung, "acc@1"), bootstrap),
      "mrr@10": pairedBootstrap(values(below, "rr@10"), values(rung, "rr@10"), bootstrap),
    };
  });
  return {
    overall,
    by_repo,
    tasks: outcomes.map((o) => ({
      id: o.id,
      repo: o.repo,
      gold: o.gold,
      ranks: Object.fromEntries(rungs.map((r) => [r, o.runs[r]!.score.rank])),
      ...(o.symRank !== undefined ? { sym_rank: o.symRank } : {}),
      ...(o.missing?.length ? { missing_files: o.missing.length, missing_gold: missingGold(o.missing, o.gold) } : {}),
    })),
    ...(symRanks.length ? { symbols: aggregateSymbols(symRanks) } : {}),
    rungs: [...rungs],
    diffs,
    n_tasks: outcomes.length,
    errors,
  };
}
