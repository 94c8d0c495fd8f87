// `memcards eval fit-symbols`: the constants of the symbol ranking (src/retrieval/symbols.ts) fitted on the
// symbol features that `eval localize --dump` writes for tasks with gold symbols. The procedure: an exhaustive
// search over a small fixed grid, maximizing symbol MRR@10 (ties: the sum of sym_acc@1/5/10, then the first
// point in grid order), with leave-one-repository-out figures (each repository scored with the constants
// fitted on the others) beside the in-sample ones.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

import { z } from "zod";

import { AppError } from "../../src/errors.js";
import {
  LEARNED_SYMBOL_WEIGHTS,
  SymbolFeatures,
  symbolScore,
  type SymbolWeights,
} from "../../src/retrieval/symbols.js";
import { aggregateSymbols, type SymbolMetrics } from "./metrics.js";

/** How many files' symbols the search may rank; the dump holds the symbols of the largest. */
export const SYMBOL_FILE_GRID = [3, 5, 8] as const;

/** The grid searched, each axis in ascending order. */
export const SYMBOL_GRID = {
  files: SYMBOL_FILE_GRID,
  decay: [0, 0.25, 0.5, 1, 2],
  named: [0, 1, 2, 4],
  body: [0, 2, 4, 8, 16, 32, 64, 128],
  container: [0.25, 0.5, 1],
  span: [0, 0.05],
} as const;

export const SymbolCandidate = SymbolFeatures.extend({
  id: z.string(),
  file: z.number().int().min(0),
  gold: z.boolean(),
});
export type SymbolCandidate = z.infer<typeof SymbolCandidate>;

/** One dumped task with gold symbols: every candidate symbol, labelled. */
export const SymbolDumpTask = z.object({ id: z.string(), repo: z.string(), symbols: z.array(SymbolCandidate) });
export type SymbolDumpTask = z.infer<typeof SymbolDumpTask>;

/** The tasks of a dump (gzipped when the name ends in `.gz`) that carry symbol candidates; other lines are skipped. */
export function loadSymbolDump(file: string): SymbolDumpTask[] {
  const out: SymbolDumpTask[] = [];
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch (err) {
    throw new AppError("BAD_INPUT", `cannot read the dump ${file}; pass a file written by eval localize --dump`, {
      cause: err,
    });
  }
  (file.endsWith(".gz") ? gunzipSync(raw) : raw)
    .toString("utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (err) {
        throw new AppError("BAD_INPUT", `${file}:${i + 1} is not JSON; pass a dump from eval localize --dump`, {
          cause: err,
        });
      }
      if (!raw || typeof raw !== "object" || !("symbols" in raw)) return;
      const parsed = SymbolDumpTask.safeParse(raw);
      if (!parsed.success) throw new AppError("BAD_INPUT", `${file}:${i + 1}: ${parsed.error.issues[0]?.message}`);
      out.push(parsed.data);
    });
  return out;
}

/** A task prepared for scoring: candidates grouped by id (a redefinition keeps its best entry). */
interface Prepared {
  repo: string;
  groups: { gold: boolean; id: string; entries: SymbolCandidate[] }[];
}

function prepare(t: SymbolDumpTask): Prepared {
  const byId = new Map<string, SymbolCandidate[]>();
  for (const s of t.symbols) {
    const list = byId.get(s.id);
    if (list) list.push(s);
    else byId.set(s.id, [s]);
  }
  return {
    repo: t.repo,
    groups: [...byId].map(([id, entries]) => ({ id, gold: entries[0]!.gold, entries })),
  };
}

/** The rank of the first gold symbol under `w` (null when none is ranked), as the ranker orders them. */
function goldRank(t: Prepared, w: SymbolWeights): number | null {
  const scored: { id: string; gold: boolean; score: number }[] = [];
  for (const g of t.groups) {
    let best = -Infinity;
    for (const e of g.entries) if (e.file < w.files) best = Math.max(best, symbolScore(e, e.file, w));
    if (best > -Infinity) scored.push({ id: g.id, gold: g.gold, score: best });
  }
  let top: { id: string; score: number } | undefined;
  for (const s of scored)
    if (s.gold && (!top || s.score > top.score || (s.score === top.score && s.id < top.id))) top = s;
  if (!top) return null;
  let rank = 1;
  for (const s of scored) if (!s.gold && (s.score > top.score || (s.score === top.score && s.id < top.id))) rank++;
  return rank;
}

const mrr = (ranks: readonly (number | null)[]) =>
  ranks.length ? ranks.reduce<number>((a, r) => a + (r !== null && r <= 10 ? 1 / r : 0), 0) / ranks.length : 0;

function* grid(): Generator<SymbolWeights> {
  for (const files of SYMBOL_GRID.files)
    for (const decay of SYMBOL_GRID.decay)
      for (const named of SYMBOL_GRID.named)
        for (const body of SYMBOL_GRID.body)
          for (const container of SYMBOL_GRID.container)
            for (const span of SYMBOL_GRID.span) yield { files, decay, named, body, container, span };
}

/** The grid point with the best MRR@10 on `tasks` (ties: sum of sym_acc@1/5/10, then grid order). */
function fitPrepared(tasks: readonly Prepared[]): SymbolWeights {
  let best: { w: SymbolWeights; key: [number, number] } | undefined;
  for (const w of grid()) {
    const ranks = tasks.map((t) => goldRank(t, w));
    const m = aggregateSymbols(ranks);
    const key: [number, number] = [mrr(ranks), m["sym_acc@1"] + m["sym_acc@5"] + m["sym_acc@10"]];
    if (!best || key[0] > best.key[0] + 1e-12 || (Math.abs(key[0] - best.key[0]) <= 1e-12 && key[1] > best.key[1]))
      best = { w, key };
  }
  return best?.w ?? LEARNED_SYMBOL_WEIGHTS;
}

/** The constants fitted on every dumped task (what `LEARNED_SYMBOL_WEIGHTS` holds). */
export function fitSymbolWeights(dumped: readonly SymbolDumpTask[]): SymbolWeights {
  return fitPrepared(dumped.map(prepare));
}

export interface SymbolScores extends SymbolMetrics {
  "mrr@10": number;
}

const scores = (ranks: readonly (number | null)[]): SymbolScores => ({
  ...aggregateSymbols(ranks),
  "mrr@10": Math.round(mrr(ranks) * 1000) / 1000,
});

export interface SymbolFitReport {
  repos: string[];
  /** The committed constants (LEARNED_SYMBOL_WEIGHTS) on the dump. */
  committed: { weights: SymbolWeights; scores: SymbolScores };
  /** Fitted on every task and scored on the same tasks. */
  in_sample: { weights: SymbolWeights; scores: SymbolScores };
  /** Each repository scored with the constants fitted on the others; the figure to quote. */
  loro: { scores: SymbolScores; folds: { repo: string; n_tasks: number; weights: SymbolWeights }[] };
}

/** Fits the symbol constants on the dumped tasks, with leave-one-repository-out figures. */
export function fitSymbolReport(dumped: readonly SymbolDumpTask[]): SymbolFitReport {
  if (!dumped.length)
    throw new AppError(
      "BAD_INPUT",
      "no task in the dump carries symbols; run eval localize --dump on tasks with gold_symbols",
    );
  const tasks = dumped.map(prepare);
  const repos = [...new Set(tasks.map((t) => t.repo))].sort();
  const rank = (w: SymbolWeights, ts: readonly Prepared[]) => ts.map((t) => goldRank(t, w));
  const fitted = fitPrepared(tasks);
  const held: (number | null)[] = [];
  const folds = repos.map((repo) => {
    const w = fitPrepared(tasks.filter((t) => t.repo !== repo));
    const mine = tasks.filter((t) => t.repo === repo);
    held.push(...rank(w, mine));
    return { repo, n_tasks: mine.length, weights: w };
  });
  return {
    repos,
    committed: { weights: LEARNED_SYMBOL_WEIGHTS, scores: scores(rank(LEARNED_SYMBOL_WEIGHTS, tasks)) },
    in_sample: { weights: fitted, scores: scores(rank(fitted, tasks)) },
    loro: { scores: scores(held), folds },
  };
}

const fmt = (s: SymbolScores) =>
  `sym_acc@1 ${s["sym_acc@1"].toFixed(3)}, @5 ${s["sym_acc@5"].toFixed(3)}, @10 ${s["sym_acc@10"].toFixed(3)}, MRR@10 ${s["mrr@10"].toFixed(3)} (${s.n_tasks} tasks)`;
const fmtW = (w: SymbolWeights) =>
  Object.entries(w)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

/** The report as Markdown lines. */
export function renderSymbolFit(r: SymbolFitReport): string {
  return [
    `# Symbol ranking fit (${r.repos.length} repositories: ${r.repos.join(", ")})`,
    "",
    `- committed (${fmtW(r.committed.weights)}): ${fmt(r.committed.scores)}`,
    `- fitted in-sample (${fmtW(r.in_sample.weights)}): ${fmt(r.in_sample.scores)}`,
    `- leave-one-repository-out: ${fmt(r.loro.scores)}`,
    ...r.loro.folds.map((f) => `  - without ${f.repo} (${f.n_tasks} held out): ${fmtW(f.weights)}`),
  ].join("\n");
}
