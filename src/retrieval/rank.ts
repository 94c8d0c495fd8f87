// File ranking for a task: lexical BM25, anchors, symbol hits, vectors and one-hop expansion, fused by RRF.
// Every signal is computed from the task text and the index; nothing else reaches this code.

import { z } from "zod";

import type { Embedder } from "../embeddings/provider.js";
import { isCodeLanguage, type LanguageId } from "../repo/languages.js";
import type { Db } from "../storage/db.js";
import { fileNeighbors } from "../storage/graph/edges.js";
import { knownFiles } from "../storage/graph/files.js";
import {
  fileLevelNodes,
  type FileNodeRef,
  nodeCount,
  symbolPaths,
  symbolsNamed,
  symbolsOfFile,
} from "../storage/graph/nodes.js";
import { searchFts, termDocFrequency } from "../storage/graph/search.js";
import { type Bm25Index, bm25Tokens, scoreBm25 } from "./bm25.js";
import { type Bm25Reader, type Bm25Source, type Bm25Store, createBm25Store, rootReader } from "./bm25-store.js";
import { type Bm25ForTokens, storedBm25 } from "./bm25-stored.js";
import { expand, type Ranked, rollUp, toRanked } from "./fuse.js";
import { createNearestVectors } from "./nearest.js";
import { type Anchor, extractAnchors, matchOf, queryTerms } from "./query.js";
import {
  LEARNED_SYMBOL_WEIGHTS,
  orderSymbols,
  type SymbolFeatures,
  symbolFeatures,
  type SymbolQuery,
  symbolScore,
  type SymbolWeights,
} from "./symbols.js";
import {
  type CandidateSignals,
  type Channel,
  fusedScore,
  type FusionWeights,
  LEARNED_WEIGHTS,
  scoreShare,
} from "./weights.js";

/** The channels a ranking fuses beside BM25 (which always runs), and whether the path prior applies. */
export const ChannelSet = z.strictObject({
  anchors: z.boolean(),
  symbols: z.boolean(),
  vectors: z.boolean(),
  expansion: z.boolean(),
  path_prior: z.boolean(),
});
export type ChannelSet = z.infer<typeof ChannelSet>;

/** Every channel: what the cards rank with. */
export const ALL_CHANNELS: ChannelSet = {
  anchors: true,
  symbols: true,
  vectors: true,
  expansion: true,
  path_prior: true,
};

/** How often a warm-up checks whether the whole-file BM25's files are read, to put its index together. */
const WARM_POLL_MS = 50;

const BM25_WEIGHTS: [number, number, number] = [0, 3, 1];
const SYMBOL_WEIGHTS: [number, number, number] = [3, 0, 1];

export interface RankedFile {
  path: string;
  score: number;
  /** 1-based rank of this file in each channel that found it. */
  channels: Record<string, number>;
}

/** The file universe of one database, built once per ranker. */
interface Universe {
  byPath: Map<string, FileNodeRef>;
  byId: Map<number, FileNodeRef>;
  byBase: Map<string, string[]>;
  /** File name without extension, lower case, separators removed (`stats-card.js` → `statscard`) → paths. */
  byFlatStem: Map<string, string[]>;
  /** Every segment suffix of a stem (`b/c`, `c` for `a/b/c`) → the stems ending with it: lookups, not scans. */
  bySuffix: Map<string, Stem[]>;
  /** For index files (`a/b/__init__`, `a/b/index`): every segment suffix of their folder → those stems. */
  byIndexDir: Map<string, Stem[]>;
}

interface Stem {
  stem: string;
  path: string;
}

const INDEX_STEMS = ["__init__", "index", "mod", "lib", "main"];

function pushTo<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const arr = m.get(k);
  if (arr) arr.push(v);
  else m.set(k, [v]);
}

/** Each suffix of `segs` on a segment boundary, longest first (`a/b/c`, `b/c`, `c`). */
function suffixes(segs: readonly string[]): string[] {
  return segs.map((_, i) => segs.slice(i).join("/"));
}

function buildUniverse(db: Db): Universe {
  const nodes = fileLevelNodes(db);
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // Path without extension (e.g. `requests/sessions` for `requests/sessions.py`).
  const stems: Stem[] = nodes.map((n) => ({ stem: n.path.replace(/\.[^./]+$/, ""), path: n.path }));
  const byBase = new Map<string, string[]>();
  for (const n of nodes) {
    const base = n.path.slice(n.path.lastIndexOf("/") + 1);
    const arr = byBase.get(base);
    if (arr) arr.push(n.path);
    else byBase.set(base, [n.path]);
  }
  const byFlatStem = new Map<string, string[]>();
  for (const n of nodes) {
    if (!isSource(n)) continue;
    const base = n.path.slice(n.path.lastIndexOf("/") + 1).replace(/\.[^.]+$/, "");
    const flat = base.toLowerCase().replace(/[-_.]/g, "");
    if (flat.length < 5) continue;
    const arr = byFlatStem.get(flat);
    if (arr) arr.push(n.path);
    else byFlatStem.set(flat, [n.path]);
  }
  const bySuffix = new Map<string, Stem[]>();
  const byIndexDir = new Map<string, Stem[]>();
  for (const st of stems) {
    const segs = st.stem.split("/");
    for (const sfx of suffixes(segs)) pushTo(bySuffix, sfx, st);
    if (segs.length > 1 && INDEX_STEMS.includes(segs[segs.length - 1]!)) {
      for (const sfx of suffixes(segs.slice(0, -1))) pushTo(byIndexDir, sfx, st);
    }
  }
  return { byPath, byId, byBase, byFlatStem, bySuffix, byIndexDir };
}

const isSource = (n: FileNodeRef | undefined) =>
  !!n && n.type === "file" && isCodeLanguage(n.kind as LanguageId | null);

/** Files whose path ends with `suffix` on a segment boundary; leading segments are dropped until one matches. */
function pathMatches(u: Universe, raw: string): string[] {
  const p = raw.replace(/\\/g, "/").replace(/^\.?\//, "");
  const segs = p.split("/").filter(Boolean);
  const base = segs[segs.length - 1] ?? "";
  const same = u.byBase.get(base) ?? [];
  for (let i = 0; i < segs.length; i++) {
    const suffix = segs.slice(i).join("/");
    const hits = same.filter((c) => c === suffix || c.endsWith("/" + suffix));
    if (hits.length) return hits;
  }
  return [];
}

/** Folders whose files are rarely what a task changes: examples, scripts, docs, benchmarks. */
// Plural folder names anywhere; singular ones only at the top, so a package such as `com/example/` is not one.
const PERIPHERAL =
  /(?:^|\/)(?:examples|scripts|docs|benchmarks|bench|asv_bench|samples|demos)\/|^(?:example|doc|benchmark|sample|demo)\//;

/**
 * Scales down files in peripheral folders (a prior from the path's role, like tests versus source), by the
 * given fusion's factor: the ranker's own weights, the committed ones when none are given.
 */
export function pathPrior(path: string, weights: Pick<FusionWeights, "peripheral"> = LEARNED_WEIGHTS): number {
  return PERIPHERAL.test(path) ? weights.peripheral : 1;
}

/** Whether a path sits in a peripheral folder (examples, scripts, docs, benchmarks). */
export function isPeripheral(path: string): boolean {
  return PERIPHERAL.test(path);
}

/** Files a dotted module path denotes, with how much of the name the file accounts for (0–1). */
function moduleMatches(u: Universe, dotted: string): { path: string; frac: number }[] {
  const parts = dotted.split(".");
  for (let i = parts.length; i >= 1; i--) {
    const suffix = parts.slice(0, i).join("/");
    const hits = [...new Set([...(u.bySuffix.get(suffix) ?? []), ...(u.byIndexDir.get(suffix) ?? [])])];
    if (hits.length && hits.length <= 5) return hits.map((h) => ({ path: h.path, frac: i / parts.length }));
    if (hits.length > 5) return [];
  }
  return [];
}

/** The anchor channel: files named, imported or defining identifiers named in the task, by specificity. */
export function anchorScores(db: Db, u: Universe, anchors: readonly Anchor[]): Ranked {
  const scores = new Map<string, number>();
  const add = (path: string, s: number) => scores.set(path, (scores.get(path) ?? 0) + s);
  for (const a of anchors) {
    if (a.kind === "path" || a.kind === "frame" || a.kind === "test") {
      const hits = pathMatches(u, a.text);
      for (const h of hits) {
        const node = u.byPath.get(h);
        const s = (a.weight * (a.kind === "frame" ? 1.2 : 1.5)) / hits.length;
        if (node?.type === "test") {
          for (const n of fileNeighbors(db, node.id)) {
            const t = u.byId.get(n.id);
            if (t && n.type === "test_covers" && n.dir === "out") add(t.path, 0.7 * s);
          }
        } else add(h, s);
      }
    } else if (a.kind === "member") {
      const [type, member] = a.text.split("::") as [string, string];
      const typeFiles = new Set(
        symbolsNamed(db, type, 50)
          .filter((d) => d.name === type)
          .map((d) => d.path),
      );
      const both = [
        ...new Set(
          symbolsNamed(db, member, 200)
            .filter((d) => d.name === member && typeFiles.has(d.path))
            .map((d) => d.path),
        ),
      ];
      if (both.length > 0 && both.length <= 3) for (const f of both) add(f, a.weight / both.length);
    } else if (a.kind === "phrase") {
      const hits = u.byFlatStem.get(a.text) ?? [];
      if (hits.length > 0 && hits.length <= 3) for (const h of hits) add(h, a.weight / hits.length);
    } else if (a.kind === "module") {
      const hits = moduleMatches(u, a.text);
      for (const h of hits) add(h.path, (a.weight * (0.5 + 0.5 * h.frac)) / hits.length);
      // `pkg.mod.Class`: the last part may be a symbol defined in the module file.
      const last = a.text.slice(a.text.lastIndexOf(".") + 1);
      if (hits.length && last) {
        const defs = symbolsNamed(db, last, 50).filter((d) => d.name === last);
        for (const d of defs) if (hits.some((h) => h.path === d.path)) add(d.path, 0.3 * a.weight);
      }
    } else {
      const defs = symbolsNamed(db, a.text, 200).filter((d) => d.name === a.text && d.kind !== "variable");
      const files = [...new Set(defs.map((d) => d.path))];
      if (files.length > 0 && files.length <= 25) {
        const spec = a.weight / Math.sqrt(files.length);
        for (const f of files) add(f, spec);
      }
      // An identifier that is a file's stem (e.g. `sessions`, `Gson`) names that file.
      const stemHits = u.bySuffix.get(a.text) ?? [];
      if (stemHits.length > 0 && stemHits.length <= 5 && !a.weak)
        for (const h of stemHits) add(h.path, (0.6 * a.weight) / stemHits.length);
    }
  }
  return toRanked(scores);
}

/** One candidate file with what every channel said about it (what the fusion and its fitting see). */
export interface FileSignals extends CandidateSignals {
  path: string;
  language: string | null;
  scores: Partial<Record<Channel, number>>;
}

/** A symbol ranked for a task: `path::Class.method`, with its line range. */
export interface RankedSymbol {
  id: string;
  path: string;
  name: string;
  kind: string | null;
  startLine: number | null;
  endLine: number | null;
  score: number;
  /** The index's node key. */
  key: string;
  /** 0-based rank of its file among the files whose symbols were ranked. */
  fileIndex: number;
  features: SymbolFeatures;
}

export interface RankSymbolsOptions {
  /** Rank the symbols of these files, in this order, instead of the best files for the task. */
  files?: readonly string[];
  weights?: SymbolWeights;
}

export interface Ranker {
  /** Files for a task with every channel fused. */
  rank(query: string, limit?: number): Promise<RankedFile[]>;
  /** Files for a task with only the given channels fused (each channel's rank is reported per file). */
  rankWith(query: string, channels: ChannelSet, limit?: number): Promise<RankedFile[]>;
  /** Every candidate with every channel's rank and score: the features the fusion weights are fitted on. */
  signals(query: string): Promise<FileSignals[]>;
  /**
   * Functions, methods and classes for a task: the symbols of the best files, by what their qualified names
   * and their own bodies share with the task, scaled by their file's rank.
   */
  rankSymbols(query: string, limit?: number, options?: RankSymbolsOptions): Promise<RankedSymbol[]>;
  /**
   * Starts building what the first ranking needs (file universe, whole-file BM25, the vectors in memory) in the
   * background, in small steps; rankings made meanwhile use the FTS and sqlite-vec paths for what is not ready.
   */
  warm(): void;
}

/** The channels of a ChannelSet: BM25 always; the index's own FTS ranks beside symbol hits. */
export function channelsOf(use: ChannelSet): Set<Channel> {
  const out = new Set<Channel>(["bm25"]);
  if (use.anchors) out.add("anchors");
  if (use.symbols) {
    out.add("symbols");
    out.add("fts");
  }
  if (use.vectors) out.add("vectors");
  if (use.expansion) out.add("expansion");
  return out;
}

/**
 * Creates a ranker over an indexed database. `embedder` must be the database's bound embedder, if any;
 * `root` is the indexed tree, whose source files the whole-file BM25 reads (without it BM25 uses the index).
 */
export function createRanker(
  db: Db,
  opts: {
    embedder?: Embedder;
    vectorsEnabled?: boolean;
    root?: string;
    weights?: FusionWeights;
    /** Kept across rankers so a re-index re-reads only changed files; made from `root` when absent. */
    bm25?: Bm25Store;
  } = {},
): Ranker {
  const weights = opts.weights ?? LEARNED_WEIGHTS;
  let universe: Universe | undefined;
  const u = () => (universe ??= buildUniverse(db));
  let bm25Index: Bm25Index | undefined;

  let ownStore: Bm25Store | undefined;
  const nearest = createNearestVectors(db);
  const bm25Store = () => opts.bm25 ?? (opts.root ? (ownStore ??= createBm25Store(rootReader(opts.root))) : undefined);
  const bm25Sources = (): Bm25Source[] => {
    const hashes = knownFiles(db);
    const files: Bm25Source[] = [];
    for (const n of u().byPath.values()) {
      const hash = hashes.get(n.path)?.hash;
      if (isSource(n) && hash !== undefined) files.push({ path: n.path, hash });
    }
    return files;
  };

  /** The index's stored counts, when they describe the current files (read once per ranker). */
  let stored: Bm25ForTokens | null | undefined;
  /**
   * The whole-file BM25 index for a query's tokens: from the stored counts, else built in memory from the files (or
   * undefined without a root or while a large first build is still reading).
   */
  const bm25For = (tokens: Iterable<string>): Bm25Index | undefined => {
    // Whole-file BM25 ranks only where the files can be read (a root or a store); elsewhere the index's FTS does.
    if (stored === undefined) stored = bm25Store() ? (storedBm25(db, bm25Sources()) ?? null) : null;
    return stored ? stored(tokens) : loadBm25();
  };

  /** The whole-file BM25 index built in memory from the files. */
  const loadBm25 = (): Bm25Index | undefined => {
    if (bm25Index) return bm25Index;
    const store = bm25Store();
    if (!store) return undefined;
    bm25Index = store.index(bm25Sources());
    return bm25Index;
  };

  const fts = (match: string): Ranked => {
    if (!match) return [];
    const hits = searchFts(db, match, { types: ["file"], limit: 300, weights: BM25_WEIGHTS });
    const out: Ranked = [];
    for (const h of hits) {
      const n = u().byId.get(h.id);
      if (isSource(n)) out.push({ key: n!.path, score: h.score });
    }
    return out;
  };

  const bm25 = (query: string, match: () => string): Ranked => {
    const tokens = bm25Tokens(query);
    const index = bm25For(tokens);
    return index ? scoreBm25(index, tokens, 300) : fts(match());
  };

  const symbols = (match: string): Ranked => {
    if (!match) return [];
    const hits = searchFts(db, match, { types: ["symbol"], limit: 600, weights: SYMBOL_WEIGHTS });
    const paths = symbolPaths(
      db,
      hits.map((h) => h.id),
    );
    return rollUp(
      hits.flatMap((h) => {
        const p = paths.get(h.id);
        return p && isSource(u().byPath.get(p)) ? [{ key: p, score: h.score }] : [];
      }),
    );
  };

  const vectors = async (query: string): Promise<Ranked> => {
    if (!opts.embedder || opts.vectorsEnabled === false) return [];
    const [q] = await opts.embedder.embed([query.slice(0, 4000)]);
    if (!q || !q.some((x) => x !== 0)) return [];
    const near = nearest.nearest(q, 200, "node");
    const paths = symbolPaths(
      db,
      near.map((n) => n.ownerId),
    );
    return rollUp(
      near.flatMap((n) => {
        const p = paths.get(n.ownerId);
        return p && isSource(u().byPath.get(p)) ? [{ key: p, score: 1 - n.distance }] : [];
      }),
    );
  };

  const neighbors = (key: string) => {
    const node = u().byPath.get(key);
    if (!node) return [];
    return fileNeighbors(db, node.id).flatMap((n) => {
      const t = u().byId.get(n.id);
      if (!isSource(t)) return [];
      const w = n.type === "imports" ? (n.dir === "out" ? 0.5 : 0.3) : 0.4;
      return [{ key: t!.path, weight: w }];
    });
  };

  /**
   * For the index's FTS channel only: drops terms that a fifth or more of the indexed nodes contain (their
   * posting lists make a query slow on a large repository). The whole-file BM25 keeps every word.
   */
  const df = new Map<string, number>();
  let total: number | undefined;
  const commonDropped = (terms: ReturnType<typeof queryTerms>) => {
    total ??= nodeCount(db);
    const n = total;
    if (n < 500) return terms;
    const docs = new Map<string, number>();
    for (const t of terms.tokens) {
      let c = df.get(t);
      if (c === undefined) df.set(t, (c = termDocFrequency(db, t)));
      docs.set(t, c);
    }
    const kept = terms.tokens.filter((t) => (docs.get(t) ?? 0) < 0.2 * n);
    if (kept.length >= Math.min(4, terms.tokens.length))
      return kept.length === terms.tokens.length ? terms : matchOf(kept);
    return matchOf([...terms.tokens].sort((a, b) => (docs.get(a) ?? 0) - (docs.get(b) ?? 0)).slice(0, 4));
  };

  /** Every channel's list for the channels in `use`; expansion seeds on the fusion of the others. */
  const channelLists = async (query: string, use: ReadonlySet<Channel>, prior: boolean) => {
    const lists: Partial<Record<Channel, Ranked>> = {};
    // The full-text match is built only when a channel asks for it (BM25 falls back to it while unbuilt).
    let built: string | undefined;
    const matchText = () => (built ??= commonDropped(queryTerms(query, 32)).match);
    lists.bm25 = bm25(query, matchText);
    const match = use.has("fts") || use.has("symbols") ? matchText() : "";
    if (use.has("fts")) lists.fts = fts(match);
    if (use.has("anchors")) lists.anchors = anchorScores(db, u(), extractAnchors(query));
    if (use.has("symbols")) lists.symbols = symbols(match);
    if (use.has("vectors")) lists.vectors = await vectors(query);
    if (use.has("expansion")) {
      const seeds = fuse(lists, use, prior).slice(0, 10);
      lists.expansion = expand(
        seeds.map((s) => ({ key: s.path, score: s.score })),
        neighbors,
      );
    }
    return lists;
  };

  const candidates = (lists: Partial<Record<Channel, Ranked>>): Map<string, FileSignals> => {
    const out = new Map<string, FileSignals>();
    for (const [name, list] of Object.entries(lists) as [Channel, Ranked][]) {
      const top = list[0]?.score ?? 1;
      list.forEach((item, i) => {
        let c = out.get(item.key);
        if (!c) {
          const node = u().byPath.get(item.key);
          c = {
            path: item.key,
            language: node?.kind ?? null,
            ranks: {},
            shares: {},
            scores: {},
            peripheral: isPeripheral(item.key),
          };
          out.set(item.key, c);
        }
        c.ranks[name] = i + 1;
        c.scores[name] = item.score;
        c.shares[name] = scoreShare(item.score, top);
      });
    }
    return out;
  };

  const fuse = (lists: Partial<Record<Channel, Ranked>>, use: ReadonlySet<Channel>, prior: boolean) => {
    const w = prior ? weights : { ...weights, peripheral: 1 };
    return [...candidates(lists).values()]
      .map((c) => ({ path: c.path, score: fusedScore(c, w, use), channels: c.ranks }))
      .filter((f) => f.score > 0)
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
  };

  const rankWith = async (query: string, use: ChannelSet, limit = 50): Promise<RankedFile[]> => {
    const chans = channelsOf(use);
    const lists = await channelLists(query, chans, use.path_prior);
    return fuse(lists, chans, use.path_prior)
      .slice(0, limit)
      .map((f) => ({ path: f.path, score: f.score, channels: f.channels as Record<string, number> }));
  };

  const signals = async (query: string): Promise<FileSignals[]> => {
    const lists = await channelLists(query, channelsOf(ALL_CHANNELS), true);
    return [...candidates(lists).values()];
  };

  let reader: Bm25Reader | undefined;
  const linesOf = (path: string): string[] | undefined => {
    if (!opts.root) return undefined;
    return (reader ??= rootReader(opts.root))(path)?.split("\n");
  };

  const rankSymbols = async (query: string, limit = 10, o: RankSymbolsOptions = {}): Promise<RankedSymbol[]> => {
    const w = o.weights ?? LEARNED_SYMBOL_WEIGHTS;
    const files = o.files ?? (await rankWith(query, ALL_CHANNELS, w.files)).map((f) => f.path);
    const tokens = new Set(bm25Tokens(query));
    const index = bm25For(tokens);
    const n = index?.keys.length ?? 0;
    const q: SymbolQuery = {
      tokens,
      named: new Set(extractAnchors(query).map((a) => a.text.split(/::|\./).pop()!.toLowerCase())),
      ...(index ? { idf: (t: string) => Math.log(1 + n / (1 + (index.postings.get(t)?.length ?? 0))) } : {}),
    };
    const out: RankedSymbol[] = [];
    files.forEach((path, i) => {
      const syms = symbolsOfFile(db, path);
      if (!syms.length) return;
      const feats = symbolFeatures(syms, q, linesOf(path));
      syms.forEach((s, j) => {
        const features = feats[j]!;
        out.push({
          id: `${path}::${s.qual}`,
          key: s.key,
          path,
          name: s.qual,
          kind: s.kind,
          startLine: s.startLine,
          endLine: s.endLine,
          fileIndex: i,
          features,
          score: symbolScore(features, i, w),
        });
      });
    });
    return orderSymbols(out).slice(0, limit);
  };

  const warm = () => {
    if (stored === undefined) stored = bm25Store() ? (storedBm25(db, bm25Sources()) ?? null) : null;
    if (!stored) bm25Store()?.warm(bm25Sources());
    if (opts.embedder && opts.vectorsEnabled !== false) nearest.warm();
    // The index itself is put together once the files are read (a few hundred milliseconds on a large repository).
    const whenRead = () => void (loadBm25() || setTimeout(whenRead, WARM_POLL_MS).unref());
    if (!stored && bm25Store()) setTimeout(whenRead, WARM_POLL_MS).unref();
  };

  return { rank: (query, limit) => rankWith(query, ALL_CHANNELS, limit), rankWith, signals, rankSymbols, warm };
}
