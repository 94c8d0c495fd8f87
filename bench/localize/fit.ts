// Fits the fusion weights offline from feature dumps (`eval localize --dump`): coordinate ascent on MRR@10,
// leave-one-repository-out cross-validation, every rung's channel set. Seconds, not index builds.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { gunzipSync } from "node:zlib";

import { z } from "zod";

import { AppError } from "../../src/errors.js";
import {
  type CandidateSignals,
  type Channel,
  CHANNELS,
  fusedScore,
  type FusionWeights,
} from "../../src/retrieval/weights.js";
import { mean, round } from "./metrics.js";

const Candidate = z.object({
  path: z.string(),
  language: z.string().nullable().optional(),
  ranks: z.record(z.string(), z.number()),
  shares: z.record(z.string(), z.number()),
  peripheral: z.boolean(),
  gold: z.boolean(),
});

/** One task of a dump: its candidates with their features and whether each is a gold file. */
export const DumpTask = z.object({ id: z.string(), repo: z.string(), candidates: z.array(Candidate) });
export type DumpTask = z.infer<typeof DumpTask> & { set?: string };

/**
 * Reads a dump (JSONL, gzipped when the name ends in `.gz`); every task is tagged with `set` (the file's name
 * without `.jsonl` or `.jsonl.gz` unless given).
 */
export function loadDump(file: string, set = basename(file).replace(/\.jsonl(\.gz)?$/, "")): DumpTask[] {
  let text: string;
  try {
    const raw = readFileSync(file);
    text = (file.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
  } catch (err) {
    throw new AppError("NOT_FOUND", `cannot read the dump ${file}: ${(err as Error).message}`, { cause: err });
  }
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l, i) => {
      const parsed = DumpTask.safeParse(JSON.parse(l));
      if (!parsed.success) throw new AppError("BAD_INPUT", `${file}:${i + 1}: not a dump line`);
      return { ...parsed.data, set };
    });
}

/** The rank (1-based) of the first gold candidate under `w`, or null when no gold file is a candidate. */
export function goldRank(task: DumpTask, w: FusionWeights, use: ReadonlySet<Channel>): number | null {
  const scores = task.candidates.map((c) => fusedScore(c as CandidateSignals, w, use));
  let best = -1;
  task.candidates.forEach((c, i) => {
    if (c.gold && scores[i]! > best) best = scores[i]!;
  });
  if (best <= 0) return null;
  // Ties count against the gold file: a fusion that cannot tell them apart has not found it.
  let above = 0;
  task.candidates.forEach((c, i) => {
    if (!c.gold && scores[i]! >= best) above++;
  });
  return above + 1;
}

export interface FitMetrics {
  n: number;
  "acc@1": number;
  "acc@5": number;
  "mrr@10": number;
}

/** Metrics from gold ranks. */
export function metricsOf(ranks: readonly (number | null)[]): FitMetrics {
  const at = (k: number) => round(mean(ranks.map((r) => (r !== null && r <= k ? 1 : 0))));
  return {
    n: ranks.length,
    "acc@1": at(1),
    "acc@5": at(5),
    "mrr@10": round(mean(ranks.map((r) => (r !== null && r <= 10 ? 1 / r : 0)))),
  };
}

/** The objective: mean reciprocal rank within 10, then Acc@1 to break ties. */
function objective(tasks: readonly DumpTask[], w: FusionWeights, use: ReadonlySet<Channel>): number {
  let rr = 0;
  let top = 0;
  for (const t of tasks) {
    const r = goldRank(t, w, use);
    if (r !== null && r <= 10) rr += 1 / r;
    if (r === 1) top++;
  }
  return (rr + 1e-3 * top) / Math.max(1, tasks.length);
}

/** Values tried for each weight; BM25 stays at 1 (fusion is scale-free, one channel fixes the scale). */
export const GRID = {
  channel: [0, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5],
  peripheral: [0.25, 0.5, 0.75, 1],
  k: [1, 3, 5, 10, 20, 60],
};

/**
 * Plain reciprocal rank fusion: every channel at 1, k = 10, no peripheral factor; only the anchor channel
 * scaled by its share of the top score (the form the ladder is walked in).
 */
export const START: FusionWeights = {
  channels: { bm25: 1, fts: 1, anchors: 1, symbols: 1, vectors: 1, expansion: 1 },
  scaled: ["anchors"],
  peripheral: 1,
  k: 10,
};

/** How a fit is run: `prior` frees the peripheral factor; `scaled` fixes which channels scale by share. */
export interface FitOptions {
  prior?: boolean;
  scaled?: readonly Channel[];
  rounds?: number;
}

/**
 * Coordinate ascent on MRR@10: from `START` (plain reciprocal rank fusion), each free parameter in turn takes the
 * grid value that scores best with the others held; rounds repeat until none changes (at most `rounds`). Only
 * the channels in `use` are free; `prior` frees the peripheral-folder factor; `scaled` (default: anchors only)
 * names the channels whose contribution scales with the file's share of the channel's top score. Deterministic.
 */
export function fitWeights(
  tasks: readonly DumpTask[],
  use: ReadonlySet<Channel>,
  opts: FitOptions = {},
): FusionWeights {
  let w: FusionWeights = { ...START, channels: { ...START.channels }, scaled: [...(opts.scaled ?? START.scaled)] };
  let best = objective(tasks, w, use);
  type Param = {
    get: (x: FusionWeights) => number;
    set: (x: FusionWeights, v: number) => FusionWeights;
    grid: number[];
  };
  const params: Param[] = [];
  for (const ch of CHANNELS) {
    if (ch === "bm25" || !use.has(ch)) continue;
    params.push({
      get: (x) => x.channels[ch],
      set: (x, v) => ({ ...x, channels: { ...x.channels, [ch]: v } }),
      grid: GRID.channel,
    });
  }
  if (use.size > 1) params.push({ get: (x) => x.k, set: (x, v) => ({ ...x, k: v }), grid: GRID.k });
  if (opts.prior)
    params.push({ get: (x) => x.peripheral, set: (x, v) => ({ ...x, peripheral: v }), grid: GRID.peripheral });
  for (let round = 0; round < (opts.rounds ?? 6); round++) {
    let changed = false;
    for (const p of params) {
      for (const v of p.grid) {
        if (v === p.get(w)) continue;
        const cand = p.set(w, v);
        const s = objective(tasks, cand, use);
        if (s > best + 1e-9) {
          best = s;
          w = cand;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return w;
}

/** Leave-one-repository-out folds: per repository, its tasks held out and every other task to fit on. */
export function loroFolds<T extends { repo: string }>(tasks: readonly T[]): { repo: string; train: T[]; test: T[] }[] {
  const repos = [...new Set(tasks.map((t) => t.repo))].sort();
  return repos.map((repo) => ({
    repo,
    train: tasks.filter((t) => t.repo !== repo),
    test: tasks.filter((t) => t.repo === repo),
  }));
}

/** Each task's gold rank from the fold that held its repository out: the cross-validated ranking. */
export function crossValidatedRanks(
  tasks: readonly DumpTask[],
  use: ReadonlySet<Channel>,
  opts: FitOptions = {},
): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const fold of loroFolds(tasks)) {
    const w = fitWeights(fold.train, use, opts);
    for (const t of fold.test) out.set(t.id, goldRank(t, w, use));
  }
  return out;
}

/** The rungs of the ladder as channel sets (the memcards rung is the full fusion). */
export const FIT_RUNGS: { rung: string; use: Channel[]; prior: boolean }[] = [
  { rung: "bm25", use: ["bm25"], prior: false },
  { rung: "+anchors", use: ["bm25", "anchors"], prior: true },
  { rung: "+symbols", use: ["bm25", "anchors", "symbols", "fts"], prior: true },
  { rung: "+vectors", use: ["bm25", "anchors", "symbols", "fts", "vectors"], prior: true },
  { rung: "+expansion", use: [...CHANNELS], prior: true },
];

/**
 * Terms tried on top of the kept rungs, in order, each kept only when the cross-validated MRR@10 over every
 * development task rises: `scaled` is the set of channels whose contribution scales with the file's share of
 * the channel's top score (CombSUM-like strength beside the rank).
 */
export const FIT_TERMS: { term: string; scaled: Channel[] }[] = [{ term: "+score shares", scaled: [...CHANNELS] }];

export const FitReport = z.object({
  procedure: z.string(),
  rungs: z.array(
    z.object({
      rung: z.string(),
      /** The channels this rung fuses: the kept ones below it and its own. */
      channels: z.array(z.string()),
      /** Whether its channels (or term) raised the cross-validated MRR@10 and stay in the fusion. */
      kept: z.boolean(),
      /** Per set: cross-validated metrics on development sets, metrics with the all-dev fit on the others. */
      sets: z.record(
        z.string(),
        z.object({ cv: z.boolean(), n: z.number(), "acc@1": z.number(), "acc@5": z.number(), "mrr@10": z.number() }),
      ),
      weights: z.unknown(),
    }),
  ),
  weights: z.unknown(),
});
export type FitReport = z.infer<typeof FitReport>;

/**
 * Every rung: leave-one-repository-out figures per development set, the fit on all development tasks, and
 * that fit applied to the held-back sets. Walking up the ladder, a rung's new channels are kept only when
 * the cross-validated MRR@10 over every development task rises above the best kept so far; later rungs build
 * on the kept channels. Then each of `FIT_TERMS` is tried on the kept channels by the same rule.
 * `weights` is the fit over the kept channels and terms (the other channels at 0): what the product commits.
 */
export function fitReport(dev: readonly DumpTask[], held: readonly DumpTask[]): FitReport {
  const rungs: FitReport["rungs"] = [];
  let kept = new Set<Channel>();
  let keptPrior = false;
  let keptScaled: readonly Channel[] = START.scaled;
  let best = -1;
  let final: FusionWeights = START;
  const setsOf = (ts: readonly DumpTask[], fallback: string) => [...new Set(ts.map((t) => t.set ?? fallback))];
  const previous = new Set<Channel>();
  const steps = [
    ...FIT_RUNGS.map((r) => ({ rung: r.rung, use: r.use, prior: r.prior, scaled: undefined as Channel[] | undefined })),
    ...FIT_TERMS.map((t) => ({ rung: t.term, use: [] as Channel[], prior: false, scaled: t.scaled })),
  ];
  for (const r of steps) {
    const added = r.use.filter((c) => !previous.has(c));
    for (const c of r.use) previous.add(c);
    const use = new Set<Channel>([...kept, ...added]);
    const prior: boolean = keptPrior || r.prior;
    const scaled = r.scaled ?? keptScaled;
    const cv = crossValidatedRanks(dev, use, { prior, scaled });
    const w = fitWeights(dev, use, { prior, scaled });
    const sets: FitReport["rungs"][number]["sets"] = {};
    for (const set of setsOf(dev, "dev")) {
      const mine = dev.filter((t) => (t.set ?? "dev") === set);
      sets[set] = { cv: true, ...metricsOf(mine.map((t) => cv.get(t.id) ?? null)) };
    }
    const all = metricsOf(dev.map((t) => cv.get(t.id) ?? null));
    sets["dev (all)"] = { cv: true, ...all };
    for (const set of setsOf(held, "held")) {
      const mine = held.filter((t) => (t.set ?? "held") === set);
      sets[set] = { cv: false, ...metricsOf(mine.map((t) => goldRank(t, w, use))) };
    }
    const keep = all["mrr@10"] > best;
    if (keep) {
      best = all["mrr@10"];
      kept = use;
      keptPrior = prior;
      keptScaled = scaled;
      final = w;
    }
    rungs.push({ rung: r.rung, channels: [...use], kept: keep, sets, weights: w });
  }
  const channels = { ...final.channels };
  for (const c of CHANNELS) if (!kept.has(c)) channels[c] = 0;
  return {
    procedure:
      "coordinate ascent on MRR@10 from plain RRF (every weight 1, k 10) over channel weights (grid 0–5), RRF k " +
      "and the peripheral factor; leave-one-repository-out over every development task; a rung's channels, then " +
      "each further term (+score shares: every channel scaled by score / top score, not only anchors), kept " +
      "only when the cross-validated MRR@10 over all development tasks rises",
    rungs,
    weights: { ...final, channels, peripheral: keptPrior ? final.peripheral : 1 },
  };
}

/** Markdown table: one row per rung, Acc@1 / Acc@5 / MRR@10 per set (CV marks cross-validated figures). */
export function renderFitReport(r: FitReport): string {
  const sets = Object.keys(r.rungs[0]?.sets ?? {});
  const head = `| rung | kept | ${sets.map((s) => `${s}${r.rungs[0]!.sets[s]!.cv ? " (CV)" : ""}`).join(" | ")} |`;
  const sep = `|---|---|${sets.map(() => "---").join("|")}|`;
  const rows = r.rungs.map(
    (x) =>
      `| ${x.rung} | ${x.kept ? "yes" : "no"} | ${sets
        .map((s) => {
          const m = x.sets[s]!;
          return `${m["acc@1"].toFixed(3)} / ${m["acc@5"].toFixed(3)} / ${m["mrr@10"].toFixed(3)}`;
        })
        .join(" | ")} |`,
  );
  return [
    `Acc@1 / Acc@5 / MRR@10. ${r.procedure}.`,
    "",
    head,
    sep,
    ...rows,
    "",
    "Fitted on every development task (commit as LEARNED_WEIGHTS):",
    "",
    "```json",
    JSON.stringify(r.weights),
    "```",
  ].join("\n");
}
