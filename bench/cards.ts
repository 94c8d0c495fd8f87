// `memcards eval cards`: what the packed cards hold for real tasks. Budget sweep (gold recall of the pack in
// both modes), removal diagnostic (drop the top card vs a random one), cards vs raw snippets vs an
// extractive summary at equal budget, harmful-before-gold (a planted stale unit), and the structural audit.
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { getMemoryCards, scoreCandidates } from "../src/cards/service.js";
import type { Config } from "../src/config.js";
import type { Logger } from "../src/log.js";
import { createRanker } from "../src/retrieval/rank.js";
import { auditCards } from "../src/scoring/cards.js";
import type { Card, PackMode, UnitKind } from "../src/scoring/schema.js";
import { graphCounts } from "../src/storage/graph/counts.js";
import { countTokens } from "../src/text/tokens.js";
import { openTaskStore } from "./localize.js";
import { seededRandom } from "./localize/bootstrap.js";
import { materializeTree } from "./localize/materialize.js";
import { mean, percentile, round } from "./localize/metrics.js";
import { type Task, taskView } from "./localize/tasks.js";

export const BUDGETS = [120, 200, 400, 800, 1600] as const;
const MODES: PackMode[] = ["post_selection", "pre_budget"];
const CODE_KINDS: UnitKind[] = ["file", "symbol", "test", "rule"];
const EQUAL_BUDGET = 800;

/** The repository path a card is about (file, symbol and test cards), from its unit key. */
export function cardPath(c: Pick<Card, "source" | "kind">): string | undefined {
  if (c.kind !== "file" && c.kind !== "symbol" && c.kind !== "test") return undefined;
  const m = /^(?:file|sym|test):([^#]+)/.exec(c.source);
  return m?.[1];
}

function recall(paths: Iterable<string | undefined>, gold: readonly string[]): number {
  const have = new Set([...paths].filter(Boolean));
  return gold.length ? gold.filter((g) => have.has(g)).length / gold.length : 0;
}

export interface CardsTaskResult {
  id: string;
  repo: string;
  sweep: Record<string, { recall: number; tokens: number; cards: number }>;
  removal: { full: number; dropTop: number; dropRandom: number } | null;
  formats: { cards: number; raw: number; summary: number; units: { cards: number; raw: number; summary: number } };
  harmful: { goldFirstBefore: boolean; goldAboveBefore: boolean; goldAboveAfter: boolean } | null;
  ms: number[];
  audit: { fields: number; verbs: number; cards: number };
}

export interface CardsEvalReport {
  n_tasks: number;
  sweep: Record<string, { recall: number; tokens: number; cards: number }>;
  removal: { tasks: number; full: number; dropTop: number; dropRandom: number };
  formats: { cards: number; raw: number; summary: number; units: { cards: number; raw: number; summary: number } };
  harmful: { tasks: number; goldFirstBefore: number; goldAboveBefore: number; goldAboveAfter: number };
  audit: { cards: number; field_completeness: number; action_hints: number };
  latency: { queries: number; p50_ms: number; p95_ms: number };
  /** get_memory_cards on one large indexed tree (e.g. sympy), every task's query once. */
  latency_large: {
    repo: string;
    files: number;
    queries: number;
    p50_ms: number;
    p95_ms: number;
    /** The file ranking alone (the localization ladder's query), same queries. */
    rank_p50_ms: number;
    rank_p95_ms: number;
  } | null;
  errors: { id: string; message: string }[];
  tasks: CardsTaskResult[];
}

async function evalTask(
  task: Task,
  app: Awaited<ReturnType<typeof openTaskStore>>["app"],
  index: number,
): Promise<CardsTaskResult> {
  const ranker = createRanker(app.db, {
    embedder: app.embedding.embedder,
    vectorsEnabled: app.embedding.vectorsEnabled,
  });
  const deps = { db: app.db, projectId: app.project.id, root: app.location.root, ranker };
  const query = task.query;
  const gold = task.gold;
  const ms: number[] = [];
  const sweep: CardsTaskResult["sweep"] = {};
  const served: Card[] = [];
  for (const b of BUDGETS) {
    for (const mode of MODES) {
      const t = performance.now();
      const r = await getMemoryCards(deps, { task: query, budgetTokens: b, mode, kinds: CODE_KINDS });
      ms.push(performance.now() - t);
      sweep[`${b}/${mode}`] = { recall: recall(r.cards.map(cardPath), gold), tokens: r.tokens, cards: r.cards.length };
      if (b === EQUAL_BUDGET) served.push(...r.cards);
    }
  }
  // Removal diagnostic on the 800-token post-selection pack.
  const base = await getMemoryCards(deps, {
    task: query,
    budgetTokens: EQUAL_BUDGET,
    mode: "post_selection",
    kinds: CODE_KINDS,
  });
  let removal: CardsTaskResult["removal"] = null;
  if (base.cards.length >= 2) {
    const rnd = seededRandom(1000 + index);
    const k = 1 + Math.floor(rnd() * (base.cards.length - 1));
    removal = {
      full: recall(base.cards.map(cardPath), gold),
      dropTop: recall(base.cards.slice(1).map(cardPath), gold),
      dropRandom: recall(base.cards.filter((_, i) => i !== k).map(cardPath), gold),
    };
  }
  // The same ranked units at equal budget: as cards, as raw snippets, as one summary line each.
  const { cards } = await scoreCandidates(deps, query, [], new Set(CODE_KINDS));
  const byUtility = cards.map((c) => c.card).sort((a, b) => b.utility - a.utility);
  const fill = (cost: (c: Card) => number) => {
    const out: Card[] = [];
    let used = 0;
    for (const c of byUtility) {
      const n = cost(c);
      if (used + n <= EQUAL_BUDGET) {
        out.push(c);
        used += n;
      }
    }
    return out;
  };
  const asCards = fill((c) => c.tokens);
  const asRaw = fill((c) => Math.max(1, c.raw_tokens));
  const asSummary = fill((c) => countTokens(`- ${c.scope}: ${c.evidence.slice(0, 80)}`));
  const formats = {
    cards: recall(asCards.map(cardPath), gold),
    raw: recall(asRaw.map(cardPath), gold),
    summary: recall(asSummary.map(cardPath), gold),
    units: { cards: asCards.length, raw: asRaw.length, summary: asSummary.length },
  };
  // Harmful-before-gold: make the best non-gold file stale (changed since indexing), then rank again.
  let harmful: CardsTaskResult["harmful"] = null;
  const files = await getMemoryCards(deps, { task: query, budgetTokens: 4000, mode: "pre_budget", kinds: ["file"] });
  const order = files.cards.map((c) => cardPath(c)!);
  const goldAt = order.findIndex((p) => gold.includes(p));
  const plant = order.find((p) => !gold.includes(p));
  if (goldAt >= 0 && plant) {
    const abs = join(app.location.root, plant);
    const before = readFileSync(abs);
    const st = statSync(abs);
    try {
      writeFileSync(abs, Buffer.concat([before, Buffer.from("\n// changed after indexing\n")]));
      const after = await getMemoryCards(deps, {
        task: query,
        budgetTokens: 4000,
        mode: "pre_budget",
        kinds: ["file"],
      });
      const o2 = after.cards.map((c) => cardPath(c)!);
      const g2 = o2.findIndex((p) => gold.includes(p));
      const h2 = o2.indexOf(plant);
      harmful = {
        goldFirstBefore: goldAt === 0,
        goldAboveBefore: goldAt < order.indexOf(plant),
        goldAboveAfter: g2 >= 0 && (h2 < 0 || g2 < h2),
      };
    } finally {
      writeFileSync(abs, before);
      utimesSync(abs, st.atime, st.mtime);
    }
  }
  const a = auditCards(served);
  return {
    id: task.id,
    repo: task.repo,
    sweep,
    removal,
    formats,
    harmful,
    ms,
    audit: {
      fields: a.fieldCompleteness * served.length,
      verbs: a.actionHints * served.length,
      cards: served.length,
    },
  };
}

export async function runCardsEval(opts: {
  tasks: Task[];
  reposDir?: string;
  cacheDir: string;
  config: Config;
  logger: Logger;
  keepStores?: boolean;
  /** A large repository to time get_memory_cards on (indexed once into a private store). */
  latencyRepo?: string;
  onTask?: (i: number, n: number, id: string, note: string) => void;
}): Promise<CardsEvalReport> {
  const results: CardsTaskResult[] = [];
  const errors: CardsEvalReport["errors"] = [];
  for (const [i, task] of opts.tasks.entries()) {
    let store: Awaited<ReturnType<typeof openTaskStore>> | undefined;
    try {
      const tree = await materializeTree(taskView(task), {
        reposDir: opts.reposDir,
        cacheDir: join(opts.cacheDir, "trees"),
        logger: opts.logger,
      });
      store = await openTaskStore(tree.dir, task, opts);
      const r = await evalTask(task, store.app, i);
      results.push(r);
      opts.onTask?.(
        i + 1,
        opts.tasks.length,
        task.id,
        `recall@800 ${r.sweep[`800/post_selection`]!.recall.toFixed(2)}`,
      );
    } catch (err) {
      errors.push({ id: task.id, message: (err as Error).message });
      opts.onTask?.(i + 1, opts.tasks.length, task.id, `error: ${(err as Error).message}`);
    } finally {
      if (store) {
        await store.app.close();
        if (!opts.keepStores) rmSync(store.storeDir, { recursive: true, force: true });
      }
    }
  }
  const sweep: CardsEvalReport["sweep"] = {};
  for (const b of BUDGETS) {
    for (const m of MODES) {
      const k = `${b}/${m}`;
      sweep[k] = {
        recall: round(mean(results.map((r) => r.sweep[k]!.recall))),
        tokens: round(mean(results.map((r) => r.sweep[k]!.tokens)), 1),
        cards: round(mean(results.map((r) => r.sweep[k]!.cards)), 1),
      };
    }
  }
  const rem = results.flatMap((r) => (r.removal ? [r.removal] : []));
  const harm = results.flatMap((r) => (r.harmful ? [r.harmful] : []));
  const share = (xs: boolean[]) => round(xs.filter(Boolean).length / Math.max(1, xs.length));
  const cardsN = results.reduce((a, r) => a + r.audit.cards, 0);
  const ms = results.flatMap((r) => r.ms);
  let latencyLarge: CardsEvalReport["latency_large"] = null;
  if (opts.latencyRepo) {
    const store = await openTaskStore(
      opts.latencyRepo,
      { id: "latency-large", repo: "latency", commit: "large" },
      { ...opts, keepStores: false },
    );
    try {
      const ranker = createRanker(store.app.db, {
        embedder: store.app.embedding.embedder,
        vectorsEnabled: store.app.embedding.vectorsEnabled,
      });
      const deps = { db: store.app.db, projectId: store.app.project.id, root: store.app.location.root, ranker };
      const times: number[] = [];
      const rankTimes: number[] = [];
      await getMemoryCards(deps, { task: opts.tasks[0]?.query ?? "warm up" }); // first call builds the file universe
      for (const t of opts.tasks) {
        let started = performance.now();
        await getMemoryCards(deps, { task: t.query });
        times.push(performance.now() - started);
        started = performance.now();
        await ranker.rank(t.query, 50);
        rankTimes.push(performance.now() - started);
      }
      const files = graphCounts(store.app.db).files;
      latencyLarge = {
        repo: opts.latencyRepo,
        files,
        queries: times.length,
        p50_ms: round(percentile(times, 0.5), 1),
        p95_ms: round(percentile(times, 0.95), 1),
        rank_p50_ms: round(percentile(rankTimes, 0.5), 1),
        rank_p95_ms: round(percentile(rankTimes, 0.95), 1),
      };
    } finally {
      await store.app.close();
      rmSync(store.storeDir, { recursive: true, force: true });
    }
  }
  return {
    latency_large: latencyLarge,
    n_tasks: results.length,
    sweep,
    removal: {
      tasks: rem.length,
      full: round(mean(rem.map((r) => r.full))),
      dropTop: round(mean(rem.map((r) => r.dropTop))),
      dropRandom: round(mean(rem.map((r) => r.dropRandom))),
    },
    formats: {
      cards: round(mean(results.map((r) => r.formats.cards))),
      raw: round(mean(results.map((r) => r.formats.raw))),
      summary: round(mean(results.map((r) => r.formats.summary))),
      units: {
        cards: round(mean(results.map((r) => r.formats.units.cards)), 1),
        raw: round(mean(results.map((r) => r.formats.units.raw)), 1),
        summary: round(mean(results.map((r) => r.formats.units.summary)), 1),
      },
    },
    harmful: {
      tasks: harm.length,
      goldFirstBefore: share(harm.map((h) => h.goldFirstBefore)),
      goldAboveBefore: share(harm.map((h) => h.goldAboveBefore)),
      goldAboveAfter: share(harm.map((h) => h.goldAboveAfter)),
    },
    audit: {
      cards: cardsN,
      field_completeness: round(results.reduce((a, r) => a + r.audit.fields, 0) / Math.max(1, cardsN)),
      action_hints: round(results.reduce((a, r) => a + r.audit.verbs, 0) / Math.max(1, cardsN)),
    },
    latency: { queries: ms.length, p50_ms: round(percentile(ms, 0.5), 1), p95_ms: round(percentile(ms, 0.95), 1) },
    errors,
    tasks: results,
  };
}

export function renderCardsEval(r: CardsEvalReport): string {
  const lines = [`${r.n_tasks} tasks scored${r.errors.length ? `, ${r.errors.length} failed` : ""}`, ""];
  lines.push("Budget sweep: gold-file recall of the pack (file, symbol, test and rule cards), tokens used, cards.", "");
  lines.push(
    "| budget | post_selection recall | tokens | cards | pre_budget recall | tokens | cards |",
    "|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const b of BUDGETS) {
    const p = r.sweep[`${b}/post_selection`]!;
    const q = r.sweep[`${b}/pre_budget`]!;
    lines.push(`| ${b} | ${p.recall} | ${p.tokens} | ${p.cards} | ${q.recall} | ${q.tokens} | ${q.cards} |`);
  }
  lines.push(
    "",
    `Removal diagnostic (${r.removal.tasks} tasks with 2+ cards at 800 tokens, post_selection): recall ${r.removal.full} with every card, ${r.removal.dropTop} without the top-utility card, ${r.removal.dropRandom} without a random one.`,
    "",
    `Equal budget (${EQUAL_BUDGET} tokens), the same ranked units: as cards recall ${r.formats.cards} (${r.formats.units.cards} units), as raw snippets ${r.formats.raw} (${r.formats.units.raw} units), as an extractive summary line each ${r.formats.summary} (${r.formats.units.summary} units).`,
    "",
    `Harmful-before-gold (${r.harmful.tasks} tasks where a gold file has a card): the best non-gold file made stale; gold ranked first before planting in ${r.harmful.goldFirstBefore}, gold above the planted unit before ${r.harmful.goldAboveBefore}, after ${r.harmful.goldAboveAfter}.`,
    "",
    `Structural audit over ${r.audit.cards} served cards: field completeness ${r.audit.field_completeness}, action hints ${r.audit.action_hints}.`,
    `get_memory_cards latency over ${r.latency.queries} calls on the task trees: p50 ${r.latency.p50_ms} ms, p95 ${r.latency.p95_ms} ms.`,
  );
  if (r.latency_large) {
    const l = r.latency_large;
    lines.push(
      `On ${l.repo} (${l.files} files indexed), ${l.queries} calls: p50 ${l.p50_ms} ms, p95 ${l.p95_ms} ms; the file ranking alone: p50 ${l.rank_p50_ms} ms, p95 ${l.rank_p95_ms} ms.`,
    );
  }
  return lines.join("\n");
}
