// `memcards eval compress --transcripts DIR`: the five systems at one token budget on every transcript,
// scored by recall of ground-truth probes per category (before any re-insertion), with 95% intervals from a
// bootstrap over transcripts; and the CBDP query set: questions generated from known events, answered by
// a search over each system's memory.
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

import type { Turn } from "../../src/conversation/schema.js";
import { countTokens } from "../../src/text/tokens.js";
import { turnTokens } from "../../src/transcript/compression/compress.js";
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { seededRandom } from "../localize/bootstrap.js";
import { loadLabelled } from "../segment.js";
import {
  contentWords,
  type GroundProbe,
  groundTruth,
  PROBE_CATEGORIES,
  type ProbeCategory,
  probeHolds,
} from "./ground-truth.js";
import {
  chunks,
  embeddingRetrieval,
  memcardsContext,
  sessionQuery,
  slidingWindow,
  type SystemName,
  SYSTEMS,
  tfidfExtractive,
  uniformExtractive,
  units,
} from "./systems.js";

export interface TranscriptResult {
  file: string;
  format: string;
  tokens: number;
  probes: { category: ProbeCategory; label: string; hits: Record<SystemName, boolean> }[];
  context_tokens: Record<SystemName, number>;
  ms: Record<SystemName, number>;
  queries: { kind: QueryKind; question: string; hits: Record<SystemName, boolean> }[];
}

type QueryKind = "commitment" | "metric" | "failure";

export interface Cell {
  hits: number;
  total: number;
  recall: number;
  lo: number;
  hi: number;
}

export interface FiveSystemReport {
  budget: number;
  query_budget: number;
  transcripts: TranscriptResult[];
  /** Per system, per probe category (and "all"): pooled recall with a 95% interval over transcripts. */
  recall: Record<SystemName, Record<ProbeCategory | "all", Cell>>;
  queries: Record<SystemName, Record<QueryKind | "all", Cell>>;
  ratio: Record<SystemName, number>;
  ms_per_transcript: Record<SystemName, number>;
  notes: string[];
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Pooled recall over the transcripts, and its 95% percentile interval resampling whole transcripts. */
export function clusterBootstrap(pairs: { hits: number; total: number }[], resamples = 2000, seed = 1): Cell {
  const hits = pairs.reduce((a, p) => a + p.hits, 0);
  const total = pairs.reduce((a, p) => a + p.total, 0);
  const recall = total ? hits / total : 0;
  const withAny = pairs.filter((p) => p.total > 0);
  if (withAny.length === 0) return { hits, total, recall: 0, lo: 0, hi: 0 };
  const rand = seededRandom(seed);
  const draws: number[] = [];
  for (let k = 0; k < resamples; k++) {
    let h = 0;
    let t = 0;
    for (let i = 0; i < withAny.length; i++) {
      const p = withAny[Math.floor(rand() * withAny.length)]!;
      h += p.hits;
      t += p.total;
    }
    draws.push(t ? h / t : 0);
  }
  draws.sort((a, b) => a - b);
  return {
    hits,
    total,
    recall: r3(recall),
    lo: r3(draws[Math.floor(0.025 * resamples)]!),
    hi: r3(draws[Math.ceil(0.975 * resamples) - 1]!),
  };
}

/** BM25 over `docs` for the query's terms: the top documents up to `budget` tokens, joined. */
export function searchMemoryText(docs: string[], query: string, budget: number): string {
  const tok = (s: string) => contentWords(s);
  const dts = docs.map(tok);
  const avg = dts.reduce((a, d) => a + d.length, 0) / Math.max(1, dts.length);
  const df = new Map<string, number>();
  for (const d of dts) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  const q = new Set(tok(query));
  const scores = dts.map((d) => {
    let s = 0;
    for (const w of q) {
      const f = d.filter((x) => x === w).length;
      if (!f) continue;
      const idf = Math.log(1 + (docs.length - df.get(w)! + 0.5) / (df.get(w)! + 0.5));
      s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.length) / Math.max(1, avg)));
    }
    return s;
  });
  const order = scores
    .map((_, i) => i)
    .filter((i) => scores[i]! > 0)
    .sort((a, b) => scores[b]! - scores[a]!);
  const out: string[] = [];
  let used = 0;
  for (const i of order) {
    const n = countTokens(docs[i]!);
    if (used + n > budget) continue;
    out.push(docs[i]!);
    used += n;
  }
  return out.join("\n");
}

interface Query {
  kind: QueryKind;
  question: string;
  answer: GroundProbe;
}

const METRIC = /\b(\d+) (passed|failed|errors?|warnings?|skipped)\b/g;

/** Questions from known events: commitments, failures, and the last value of each test count. */
export function queriesFor(turns: Turn[], probes: GroundProbe[]): Query[] {
  const out: Query[] = [];
  for (const p of probes) {
    if (p.category === "commitment")
      out.push({ kind: "commitment", question: `Did the agent commit to: ${p.label}?`, answer: p });
    if (p.category === "error") out.push({ kind: "failure", question: `Has it failed with ${p.label}?`, answer: p });
  }
  const last = new Map<string, { value: string; turn: string }>();
  for (const t of turns)
    for (const r of t.tool_results)
      for (const m of r.output.matchAll(METRIC)) last.set(m[2]!.replace(/s$/, ""), { value: m[1]!, turn: t.id });
  for (const [metric, v] of last)
    out.push({
      kind: "metric",
      question: `What was the last number of tests ${metric}?`,
      answer: {
        category: "artifact",
        kind: "cooccur",
        groups: [[`${v.value} ${metric}`]],
        window: 0,
        label: `${v.value} ${metric}`,
        turn: v.turn,
      },
    });
  return out;
}

export interface FiveSystemOptions {
  dir: string;
  workDir: string;
  budget?: number;
  /** Tokens of search results each system may use to answer one question. */
  queryBudget?: number;
  /** The hand-labelled set whose commitment quotes become commitment probes. */
  labelled?: string;
  files?: string[];
  onFile?: (f: string) => void;
}

export function runFiveSystems(opts: FiveSystemOptions): FiveSystemReport {
  const budget = opts.budget ?? 2000;
  const queryBudget = opts.queryBudget ?? 300;
  const labelled = opts.labelled ? loadLabelled(opts.labelled) : [];
  const files = (opts.files ?? readdirSync(opts.dir).sort()).filter((f) => !f.endsWith(".json") && !f.startsWith("."));
  const results: TranscriptResult[] = [];
  const skipped: string[] = [];
  files.forEach((file, idx) => {
    opts.onFile?.(file);
    const path = join(opts.dir, file);
    let t: ReturnType<typeof parseTranscriptFile>;
    try {
      t = parseTranscriptFile(path);
    } catch (err) {
      skipped.push(`${file}: ${(err as Error).message}`);
      return;
    }
    const commitments = new Map<string, string[]>();
    for (const l of labelled) if (l.source === file && l.commitments.length) commitments.set(l.turn, l.commitments);
    const probes = groundTruth(t, { commitments, path });
    const all = units(t.turns);
    const contexts = {} as Record<SystemName, string>;
    const ms = {} as Record<SystemName, number>;
    const time = (name: SystemName, f: () => string) => {
      const t0 = performance.now();
      contexts[name] = f();
      ms[name] = Math.round(performance.now() - t0);
    };
    let memcardsMemory: string[] = [];
    time("window", () => slidingWindow(t.turns, budget));
    time("uniform", () => uniformExtractive(all, budget));
    time("tfidf", () => tfidfExtractive(all, budget));
    time("retrieval", () => embeddingRetrieval(all, sessionQuery(t.turns), budget));
    time("memcards", () => {
      const m = memcardsContext(path, budget, opts.workDir, `f${idx}`);
      memcardsMemory = m.memory;
      return m.text;
    });
    const hitsOf = (p: GroundProbe, texts: Record<SystemName, string>) =>
      Object.fromEntries(SYSTEMS.map((s) => [s, probeHolds(p, texts[s])])) as Record<SystemName, boolean>;
    const rawChunks = chunks(all).map((c) => c.text);
    const memoryOf: Record<SystemName, string[]> = {
      window: contexts.window.split("\n"),
      uniform: contexts.uniform.split("\n"),
      tfidf: contexts.tfidf.split("\n"),
      retrieval: rawChunks,
      memcards: memcardsMemory,
    };
    const queries = queriesFor(t.turns, probes).map((q) => {
      const answers = Object.fromEntries(
        SYSTEMS.map((s) => [s, searchMemoryText(memoryOf[s], q.question, queryBudget)]),
      ) as Record<SystemName, string>;
      return { kind: q.kind, question: q.question, hits: hitsOf(q.answer, answers) };
    });
    results.push({
      file,
      format: t.format,
      tokens: t.turns.reduce((a, x) => a + turnTokens(x), 0),
      probes: probes.map((p) => ({ category: p.category, label: p.label, hits: hitsOf(p, contexts) })),
      context_tokens: Object.fromEntries(SYSTEMS.map((s) => [s, countTokens(contexts[s])])) as Record<
        SystemName,
        number
      >,
      ms,
      queries,
    });
  });
  const recall = {} as FiveSystemReport["recall"];
  const queries = {} as FiveSystemReport["queries"];
  const ratio = {} as FiveSystemReport["ratio"];
  const msPer = {} as FiveSystemReport["ms_per_transcript"];
  for (const s of SYSTEMS) {
    recall[s] = {} as Record<ProbeCategory | "all", Cell>;
    for (const c of [...PROBE_CATEGORIES, "all"] as const) {
      recall[s][c] = clusterBootstrap(
        results.map((r) => {
          const ps = r.probes.filter((p) => c === "all" || p.category === c);
          return { hits: ps.filter((p) => p.hits[s]).length, total: ps.length };
        }),
      );
    }
    queries[s] = {} as Record<QueryKind | "all", Cell>;
    for (const k of ["commitment", "metric", "failure", "all"] as const) {
      queries[s][k] = clusterBootstrap(
        results.map((r) => {
          const qs = r.queries.filter((q) => k === "all" || q.kind === k);
          return { hits: qs.filter((q) => q.hits[s]).length, total: qs.length };
        }),
      );
    }
    const before = results.reduce((a, r) => a + r.tokens, 0);
    const after = results.reduce((a, r) => a + r.context_tokens[s], 0);
    ratio[s] = Math.round((before / Math.max(1, after)) * 10) / 10;
    msPer[s] = Math.round(results.reduce((a, r) => a + r.ms[s], 0) / Math.max(1, results.length));
  }
  const notes = [
    ...(skipped.length ? [`Skipped (unreadable): ${skipped.join("; ")}.`] : []),
    `Budget ${budget} tokens per transcript for every system; memcards gives at most 80% to the summary (scored before re-insertion), then warm memories (commitments first), then the latest messages verbatim.`,
    "Retrieval uses the built-in offline embedder (hashed features), with the session's first and last requests as its query.",
    `Query set: each system answers from its own memory with ${queryBudget} tokens of BM25 search results; memcards' memory is its summary and all active units, retrieval's is the whole raw transcript (nothing compressed), the others' their ${budget}-token context.`,
    labelled.length
      ? `Commitment probes are the hand-labelled commitment quotes of ${relative(process.cwd(), opts.labelled ?? "") || opts.labelled}.`
      : "Commitment probes are user sentences with a binding word (no labelled set given).",
  ];
  return {
    budget,
    query_budget: queryBudget,
    transcripts: results,
    recall,
    queries,
    ratio,
    ms_per_transcript: msPer,
    notes,
  };
}

const f2 = (x: number) => x.toFixed(2);
const cell = (c: Cell) => (c.total ? `${f2(c.recall)} [${f2(c.lo)}, ${f2(c.hi)}]` : "—");

export function renderFiveSystems(r: FiveSystemReport): string {
  const n = (c: ProbeCategory) => r.recall.window[c].total;
  const head = `| system | ${PROBE_CATEGORIES.map((c) => `${c} (${n(c)})`).join(" | ")} | all (${r.recall.window.all.total}) | ratio | ms / transcript |`;
  const lines = [
    `Recall of ground-truth probes at ${r.budget} tokens, ${r.transcripts.length} transcripts, 95% intervals over transcripts:`,
    "",
    head,
    `|---|${PROBE_CATEGORIES.map(() => "---:").join("|")}|---:|---:|---:|`,
    ...SYSTEMS.map(
      (s) =>
        `| ${s} | ${PROBE_CATEGORIES.map((c) => cell(r.recall[s][c])).join(" | ")} | ${cell(r.recall[s].all)} | ${r.ratio[s]} | ${r.ms_per_transcript[s]} |`,
    ),
    "",
    `Query set (${r.recall.window.all.total ? "" : "no probes; "}${r.queries.window.commitment.total} commitment, ${r.queries.window.metric.total} metric, ${r.queries.window.failure.total} failure questions), answered by search over each system's memory:`,
    "",
    "| system | commitment | metric | failure | all |",
    "|---|---:|---:|---:|---:|",
    ...SYSTEMS.map(
      (s) =>
        `| ${s} | ${cell(r.queries[s].commitment)} | ${cell(r.queries[s].metric)} | ${cell(r.queries[s].failure)} | ${cell(r.queries[s].all)} |`,
    ),
    "",
    ...r.notes.map((x) => `- ${x}`),
  ];
  const ahead = (["artifact", "error", "commitment"] as const).map((c) => {
    const best = SYSTEMS.filter((s) => s !== "memcards").sort(
      (a, b) => r.recall[b][c].recall - r.recall[a][c].recall,
    )[0]!;
    const m = r.recall.memcards[c].recall;
    const b = r.recall[best][c].recall;
    return `${c}: memcards ${f2(m)} vs best baseline ${best} ${f2(b)} (${m > b ? "ahead" : m === b ? "level" : "behind"})`;
  });
  lines.push(`- ${ahead.join("; ")}.`);
  return lines.join("\n");
}

const COLORS: Record<SystemName, string> = {
  window: "#9aa5b1",
  uniform: "#c9a227",
  tfidf: "#6a9fb5",
  retrieval: "#8e6ab5",
  memcards: "#d9534f",
};

/** A grouped bar chart of recall per category per system, with the intervals as whiskers. */
export function fiveSystemsSvg(r: FiveSystemReport): string {
  const W = 760;
  const H = 340;
  const left = 48;
  const top = 40;
  const plotH = 230;
  const cats = [...PROBE_CATEGORIES, "all"] as const;
  const groupW = (W - left - 20) / cats.length;
  const barW = (groupW - 16) / SYSTEMS.length;
  const y = (v: number) => top + plotH * (1 - v);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="14">Probe recall per category at ${r.budget} tokens (${r.transcripts.length} transcripts, 95% intervals)</text>`,
  ];
  for (let v = 0; v <= 1.0001; v += 0.25) {
    out.push(`<line x1="${left}" x2="${W - 20}" y1="${y(v)}" y2="${y(v)}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(2)}</text>`);
  }
  cats.forEach((c, gi) => {
    const gx = left + gi * groupW + 8;
    SYSTEMS.forEach((s, si) => {
      const cellv = r.recall[s][c];
      const x = gx + si * barW;
      out.push(
        `<rect x="${x.toFixed(1)}" y="${y(cellv.recall).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(plotH * cellv.recall).toFixed(1)}" fill="${COLORS[s]}"><title>${s} ${c}: ${cell(cellv)}</title></rect>`,
      );
      const cx = (x + (barW - 2) / 2).toFixed(1);
      out.push(
        `<line x1="${cx}" x2="${cx}" y1="${y(cellv.lo).toFixed(1)}" y2="${y(cellv.hi).toFixed(1)}" stroke="#333"/>`,
      );
    });
    out.push(
      `<text x="${(gx + (groupW - 16) / 2).toFixed(1)}" y="${top + plotH + 18}" text-anchor="middle">${c} (${r.recall.window[c].total})</text>`,
    );
  });
  SYSTEMS.forEach((s, i) => {
    const x = left + i * 130;
    out.push(`<rect x="${x}" y="${H - 26}" width="12" height="12" fill="${COLORS[s]}"/>`);
    out.push(`<text x="${x + 18}" y="${H - 16}">${s}</text>`);
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
