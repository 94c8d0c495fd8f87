// `memcards eval cards --calibrate`: fits the task-evidence model (scoring/calibration.ts). One index per
// repository of the task set; every task is scored on its own repository (real) and on every other one (a
// task this index has no evidence for). Leave-one-repository-out figures say how well the fit separates the two
// on a repository it never saw; the final coefficients come from all rows.
import { rmSync } from "node:fs";
import { join } from "node:path";

import { evidenceFeatures } from "../src/cards/evidence.js";
import type { Config } from "../src/config.js";
import type { Logger } from "../src/log.js";
import { createRanker } from "../src/retrieval/rank.js";
import {
  CALIBRATION,
  type Calibration,
  confidenceOf,
  CONFIDENT,
  type EvidenceFeatures,
  fitCalibration,
} from "../src/scoring/calibration.js";
import { openTaskStore } from "./localize.js";
import { materializeTree } from "./localize/materialize.js";
import { percentile, round } from "./localize/metrics.js";
import { type Task, taskView } from "./localize/tasks.js";

export interface CalibrationRow {
  task: string;
  /** The repository whose index scored the task. */
  index: string;
  real: boolean;
  f: EvidenceFeatures;
}

export interface CalibrationReport {
  repos: string[];
  rows: number;
  real: number;
  foreign: number;
  /** Held-out (leave-one-repository-out) separation: AUC, and accuracy of each class at the boundary. */
  held_out: { auc: number; real_confident: number; foreign_not_confident: number };
  fitted: Calibration;
  in_use: Calibration;
  /** Confidence quartiles of each class under the fitted coefficients. */
  confidence: { real: [number, number, number]; foreign: [number, number, number] };
  errors: { repo: string; message: string }[];
}

/** Area under the ROC curve: the chance a real row scores above a foreign one (ties count half). */
function auc(pos: readonly number[], neg: readonly number[]): number {
  let s = 0;
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0;
  return pos.length && neg.length ? s / (pos.length * neg.length) : 0;
}

/** Class weights so both classes weigh the same in the fit. */
function balanced(rows: readonly CalibrationRow[]) {
  const real = rows.filter((r) => r.real).length;
  const foreign = rows.length - real;
  return rows.map((r) => ({ f: r.f, real: r.real, weight: r.real ? 1 : real / Math.max(1, foreign) }));
}

/** Scores every task on one index per repository; returns the rows. */
export async function calibrationRows(opts: {
  tasks: Task[];
  reposDir?: string;
  cacheDir: string;
  config: Config;
  logger: Logger;
  keepStores?: boolean;
  onRepo?: (i: number, n: number, repo: string, note: string) => void;
}): Promise<{ rows: CalibrationRow[]; errors: CalibrationReport["errors"] }> {
  const firstOf = new Map<string, Task>();
  for (const t of opts.tasks) if (!firstOf.has(t.repo)) firstOf.set(t.repo, t);
  const rows: CalibrationRow[] = [];
  const errors: CalibrationReport["errors"] = [];
  for (const [i, [repo, first]] of [...firstOf].entries()) {
    let store: Awaited<ReturnType<typeof openTaskStore>> | undefined;
    try {
      const tree = await materializeTree(taskView(first), {
        reposDir: opts.reposDir,
        cacheDir: join(opts.cacheDir, "trees"),
        logger: opts.logger,
      });
      store = await openTaskStore(tree.dir, first, opts);
      const ranker = createRanker(store.app.db, {
        embedder: store.app.embedding.embedder,
        vectorsEnabled: store.app.embedding.vectorsEnabled,
      });
      for (const t of opts.tasks) {
        const ranked = await ranker.rank(t.query.slice(0, 20_000), 12);
        rows.push({
          task: t.id,
          index: repo,
          real: t.repo === repo,
          f: evidenceFeatures(store.app.db, t.query.slice(0, 20_000), ranked),
        });
      }
      opts.onRepo?.(i + 1, firstOf.size, repo, `${opts.tasks.length} tasks scored`);
    } catch (err) {
      errors.push({ repo, message: (err as Error).message });
      opts.onRepo?.(i + 1, firstOf.size, repo, `error: ${(err as Error).message}`);
    } finally {
      if (store) {
        await store.app.close();
        if (!opts.keepStores) rmSync(store.storeDir, { recursive: true, force: true });
      }
    }
  }
  return { rows, errors };
}

/** Fits on the rows: leave-one-repository-out figures first, then the coefficients from every row. */
export function calibrate(
  rows: readonly CalibrationRow[],
  errors: CalibrationReport["errors"] = [],
): CalibrationReport {
  const repos = [...new Set(rows.map((r) => r.index))];
  const heldPos: number[] = [];
  const heldNeg: number[] = [];
  for (const repo of repos) {
    // Neither the held-out repository's index nor its tasks take part in the fit that scores them.
    const taskRepo = new Map(rows.filter((r) => r.real).map((r) => [r.task, r.index]));
    const train = rows.filter((r) => r.index !== repo && taskRepo.get(r.task) !== repo);
    const c = fitCalibration(balanced(train));
    for (const r of rows.filter((x) => x.index === repo)) (r.real ? heldPos : heldNeg).push(confidenceOf(r.f, c));
  }
  const fitted = fitCalibration(balanced(rows));
  const conf = (real: boolean) => rows.filter((r) => r.real === real).map((r) => confidenceOf(r.f, fitted));
  const q = (xs: number[]): [number, number, number] => [
    round(percentile(xs, 0.25)),
    round(percentile(xs, 0.5)),
    round(percentile(xs, 0.75)),
  ];
  const share = (xs: number[], ok: (x: number) => boolean) => round(xs.filter(ok).length / Math.max(1, xs.length));
  return {
    repos,
    rows: rows.length,
    real: rows.filter((r) => r.real).length,
    foreign: rows.filter((r) => !r.real).length,
    held_out: {
      auc: round(auc(heldPos, heldNeg)),
      real_confident: share(heldPos, (x) => x >= CONFIDENT),
      foreign_not_confident: share(heldNeg, (x) => x < CONFIDENT),
    },
    fitted,
    in_use: CALIBRATION,
    confidence: { real: q(conf(true)), foreign: q(conf(false)) },
    errors,
  };
}

export function renderCalibration(r: CalibrationReport): string {
  const c = r.fitted;
  return [
    `Task-evidence calibration over ${r.repos.length} repositories (${r.repos.join(", ")}): ${r.real} real and ${r.foreign} foreign task-index pairs${r.errors.length ? `, ${r.errors.length} repositories failed` : ""}.`,
    `Leave-one-repository-out: AUC ${r.held_out.auc}; real tasks confident (≥ ${CONFIDENT}) ${r.held_out.real_confident}, foreign tasks not confident ${r.held_out.foreign_not_confident}.`,
    `Fitted on all rows: intercept ${c.intercept}, coverage ${c.coverage}, anchored ${c.anchored}, log files ${c.log_files} (in use: ${r.in_use.intercept}, ${r.in_use.coverage}, ${r.in_use.anchored}, ${r.in_use.log_files}).`,
    `Confidence quartiles: real ${r.confidence.real.join(" / ")}, foreign ${r.confidence.foreign.join(" / ")}.`,
  ].join("\n");
}
