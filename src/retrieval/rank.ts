// File ranking for a task: lexical BM25, anchors, symbol hits, vectors and one-hop expansion, fused by RRF.
// Every signal is computed from the task text and the index; nothing else reaches this code. The channels are
// functions of their own (channels.ts); this module keeps what a ranker holds between calls (the file universe, the
// BM25 counts, the vectors in memory, term counts) and composes the steps: channel lists, candidate signals, fusion,
// symbol ranking.

import { z } from "zod";

import type { Embedder } from "../embeddings/provider.js";
import type { Db } from "../storage/db.js";
import { fileHash, knownFiles } from "../storage/graph/files.js";
import { nodeCount } from "../storage/graph/nodes.js";
import { termDocFrequency } from "../storage/graph/search.js";
import { type BodySpans, decodeBodySpans, spanBodiesForTokens, spanKey } from "../text/symbol-bodies.js";
import { type Bm25Index, bm25Tokens } from "./bm25.js";
import { type Bm25Reader, type Bm25Source, type Bm25Store, createBm25Store, rootReader } from "./bm25-store.js";
import { type Bm25ForTokens, storedBm25 } from "./bm25-stored.js";
import {
  anchorScores,
  bm25Channel,
  dropCommonTerms,
  expansionChannel,
  fileAndSymbolChannels,
  ftsChannel,
  type FtsTerms,
  rareFirst,
  vectorChannel,
} from "./channels.js";
import { type FileSymbols, fileSymbolsReader, keptFileSymbols, type ReadFileSymbols } from "./file-symbols.js";
import type { Ranked } from "./fuse.js";
import { createNearestVectors } from "./nearest.js";
import { extractAnchors, queryTerms } from "./query.js";
import {
  allBodiesFromLines,
  bodiesForTokens,
  LEARNED_SYMBOL_WEIGHTS,
  orderSymbols,
  type SymbolBody,
  type SymbolFeatures,
  symbolFeaturesOf,
  type SymbolQuery,
  symbolScore,
  type SymbolWeights,
} from "./symbols.js";
import { isSource, type Universe, universeOf } from "./universe.js";
import {
  type CandidateSignals,
  type Channel,
  fusedScore,
  type FusionWeights,
  LEARNED_WEIGHTS,
  scoreShare,
} from "./weights.js";

export { anchorScores } from "./channels.js";

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
/** Query terms the FTS channels search with: the task's most frequent (as the evidence features count them). */
const QUERY_TERMS = 32;
/** Files a ranking returns unless the caller asks for another number (the evaluation's depth). */
const DEFAULT_LIMIT = 50;
/** Symbols `rankSymbols` returns unless asked for another number. */
const DEFAULT_SYMBOLS = 10;

export interface RankedFile {
  path: string;
  score: number;
  /** 1-based rank of this file in each channel that found it. */
  channels: Record<string, number>;
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
  /** Resolves once what `warm` started reading in the background (the vectors' copy) is read. */
  warmed(): Promise<void>;
  /** Whether this ranker has ranked a task yet (a call's ranking, or a warm-up's). */
  used(): boolean;
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

/** Every list's files merged: per file, each channel's 1-based rank, score and share of the channel's top score. */
export function candidateSignals(lists: Partial<Record<Channel, Ranked>>, u: Universe): Map<string, FileSignals> {
  const out = new Map<string, FileSignals>();
  for (const [name, list] of Object.entries(lists) as [Channel, Ranked][]) {
    const top = list[0]?.score ?? 1;
    list.forEach((item, i) => {
      let c = out.get(item.key);
      if (!c) {
        const node = u.byPath.get(item.key);
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
}

/** The fused ranking of the lists under `weights` (the path prior off unless `prior`): best first, ties by path. */
export function fuseLists(
  lists: Partial<Record<Channel, Ranked>>,
  use: ReadonlySet<Channel>,
  weights: FusionWeights,
  prior: boolean,
  u: Universe,
): { path: string; score: number; channels: Partial<Record<Channel, number>> }[] {
  const w = prior ? weights : { ...weights, peripheral: 1 };
  return [...candidateSignals(lists, u).values()]
    .map((c) => ({ path: c.path, score: fusedScore(c, w, use), channels: c.ranks }))
    .filter((f) => f.score > 0)
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
}

/**
 * Bodies taken from the lines of files the index kept none for (tests, other languages), counting every token, per
 * file as a ranker keeps it (`keptFileSymbols`): such a file is tokenized once while it is kept, not on every query.
 */
const linesBodies = new WeakMap<FileSymbols, (SymbolBody | undefined)[]>();
/** The stored bodies of a file a ranker keeps, read out of their varints once (`decodeBodySpans`). */
const storedSpans = new WeakMap<FileSymbols, BodySpans>();

/**
 * A file's symbols' bodies for the query's tokens: those the index stored when they describe every span, else from
 * the file's lines (undefined bodies, names alone, when the file cannot be read).
 */
function symbolBodies(
  path: string,
  file: FileSymbols,
  tokens: ReadonlySet<string>,
  linesOf: (path: string) => string[] | undefined,
): (SymbolBody | undefined)[] {
  const { syms, stored: row } = file;
  let spans = row?.bodies ? storedSpans.get(file) : undefined;
  if (row?.bodies && !spans) storedSpans.set(file, (spans = decodeBodySpans(row.bodies)));
  const stored = row && spans ? spanBodiesForTokens(spans, row.terms, tokens) : undefined;
  if (stored) {
    const out: (SymbolBody | undefined)[] = [];
    for (const s of syms) {
      if (!s.startLine || !s.endLine) {
        out.push(undefined);
        continue;
      }
      const b = stored.get(spanKey(s.startLine, s.endLine));
      if (!b) break;
      out.push(b);
    }
    if (out.length === syms.length) return out;
  }
  let all = linesBodies.get(file);
  if (!all) {
    const lines = linesOf(path);
    if (!lines) return syms.map(() => undefined);
    linesBodies.set(file, (all = allBodiesFromLines(syms, lines)));
  }
  return bodiesForTokens(all, tokens);
}

/**
 * The symbols of `files` (in that order) scored for a query; `linesOf` gives a file's lines for body matches, `read` a
 * file's symbols and stored bodies (from the store unless given).
 */
export function rankFileSymbols(
  db: Db,
  files: readonly string[],
  q: SymbolQuery,
  w: SymbolWeights,
  linesOf: (path: string) => string[] | undefined,
  read: ReadFileSymbols = fileSymbolsReader(db),
): RankedSymbol[] {
  const out: RankedSymbol[] = [];
  files.forEach((path, i) => {
    const file = read(path);
    const syms = file.syms;
    if (!syms.length) return;
    const feats = symbolFeaturesOf(syms, q, symbolBodies(path, file, q.tokens, linesOf));
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
  return orderSymbols(out);
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
  const u = () => (universe ??= universeOf(db));
  const nearest = createNearestVectors(db);
  const bm25 = bm25Source(db, u, opts);

  // Term counts over the index's nodes, for dropping common terms from the FTS query (kept for the ranker's life).
  const df = new Map<string, number>();
  let total: number | undefined;
  const docFrequency = (t: string) => {
    let c = df.get(t);
    if (c === undefined) df.set(t, (c = termDocFrequency(db, t)));
    return c;
  };

  /** Every channel's list for the channels in `use`; expansion seeds on the fusion of the others. */
  const channelLists = async (query: string, use: ReadonlySet<Channel>, prior: boolean) => {
    const lists: Partial<Record<Channel, Ranked>> = {};
    // The full-text match is built only when a channel asks for it (BM25 falls back to it while unbuilt).
    let built: FtsTerms | undefined;
    const matchText = () =>
      (built ??= rareFirst(
        dropCommonTerms(queryTerms(query, QUERY_TERMS), (total ??= nodeCount(db)), docFrequency).tokens,
        docFrequency,
      ));
    // BM25 without a whole-file index falls back to the same list as the FTS channel: searched once. With the symbol
    // channel, both channels' lists come from one search.
    let both: { files: Ranked; symbols: Ranked } | undefined;
    const ftsBoth = () => (both ??= fileAndSymbolChannels(db, u(), matchText(), docFrequency));
    let fts: Ranked | undefined;
    const ftsList = () => (fts ??= use.has("symbols") ? ftsBoth().files : ftsChannel(db, u(), matchText()));
    const tokens = bm25Tokens(query);
    lists.bm25 = bm25Channel(bm25.forTokens(tokens), tokens, ftsList);
    if (use.has("fts")) lists.fts = ftsList();
    if (use.has("anchors")) lists.anchors = anchorScores(db, u(), extractAnchors(query));
    if (use.has("symbols")) lists.symbols = ftsBoth().symbols;
    if (use.has("vectors"))
      lists.vectors =
        opts.embedder && opts.vectorsEnabled !== false
          ? await vectorChannel(db, u(), nearest, opts.embedder, query)
          : [];
    if (use.has("expansion")) lists.expansion = expansionChannel(db, u(), fuseLists(lists, use, weights, prior, u()));
    return lists;
  };

  let used = false;
  const rankWith = async (query: string, use: ChannelSet, limit = DEFAULT_LIMIT): Promise<RankedFile[]> => {
    used = true;
    const chans = channelsOf(use);
    const lists = await channelLists(query, chans, use.path_prior);
    return fuseLists(lists, chans, weights, use.path_prior, u())
      .slice(0, limit)
      .map((f) => ({ path: f.path, score: f.score, channels: f.channels as Record<string, number> }));
  };

  const signals = async (query: string): Promise<FileSignals[]> => {
    used = true;
    const lists = await channelLists(query, channelsOf(ALL_CHANNELS), true);
    return [...candidateSignals(lists, u()).values()];
  };

  const fileSymbols = keptFileSymbols(fileSymbolsReader(db), (path) => fileHash(db, path));
  let reader: Bm25Reader | undefined;
  const linesOf = (path: string): string[] | undefined => {
    if (!opts.root) return undefined;
    return (reader ??= rootReader(opts.root))(path)?.split("\n");
  };

  const rankSymbols = async (
    query: string,
    limit = DEFAULT_SYMBOLS,
    o: RankSymbolsOptions = {},
  ): Promise<RankedSymbol[]> => {
    const w = o.weights ?? LEARNED_SYMBOL_WEIGHTS;
    const files = o.files ?? (await rankWith(query, ALL_CHANNELS, w.files)).map((f) => f.path);
    const tokens = new Set(bm25Tokens(query));
    const named = new Set(extractAnchors(query).map((a) => a.text.split(/::|\./).pop()!.toLowerCase()));
    // The idf is also taken of the names the task spells in words (`unit circle` → unitcircle), not in its tokens.
    const index = bm25.forTokens(new Set([...tokens, ...named]));
    const n = index?.keys.length ?? 0;
    const q: SymbolQuery = {
      tokens,
      named,
      ...(index ? { idf: (t: string) => Math.log(1 + n / (1 + (index.postings.get(t)?.length ?? 0))) } : {}),
    };
    return rankFileSymbols(db, files, q, w, linesOf, fileSymbols).slice(0, limit);
  };

  const warm = () => {
    bm25.warm();
    if (opts.embedder && opts.vectorsEnabled !== false) nearest.warm();
  };

  return {
    rank: (query, limit) => rankWith(query, ALL_CHANNELS, limit),
    rankWith,
    signals,
    rankSymbols,
    warm,
    warmed: () => nearest.settled(),
    used: () => used,
  };
}

/**
 * The whole-file BM25 of a ranker: the counts the index stored when they describe the current files, else an index
 * built in memory from the files (undefined without a root or a store, or while a large first build is reading).
 */
function bm25Source(
  db: Db,
  u: () => Universe,
  opts: { root?: string; bm25?: Bm25Store },
): { forTokens: (tokens: Iterable<string>) => Bm25Index | undefined; warm: () => void } {
  let ownStore: Bm25Store | undefined;
  const store = () => opts.bm25 ?? (opts.root ? (ownStore ??= createBm25Store(rootReader(opts.root))) : undefined);
  const sources = (): Bm25Source[] => {
    const hashes = knownFiles(db);
    const files: Bm25Source[] = [];
    for (const n of u().byPath.values()) {
      const hash = hashes.get(n.path)?.hash;
      if (isSource(n) && hash !== undefined) files.push({ path: n.path, hash });
    }
    return files;
  };
  // Whole-file BM25 ranks only where the files can be read (a root or a store); elsewhere the index's FTS does.
  let stored: Bm25ForTokens | null | undefined;
  const storedIndex = () => {
    if (stored === undefined) stored = store() ? (storedBm25(db, sources()) ?? null) : null;
    return stored;
  };
  let built: Bm25Index | undefined;
  const inMemory = (): Bm25Index | undefined => {
    if (built) return built;
    const s = store();
    if (!s) return undefined;
    built = s.index(sources());
    return built;
  };
  return {
    forTokens(tokens) {
      const s = storedIndex();
      return s ? s(tokens) : inMemory();
    },
    warm() {
      if (storedIndex()) return;
      store()?.warm(sources());
      // The index itself is put together once the files are read (a few hundred milliseconds on a large repository).
      // A store closed meanwhile (a server stopping, an idle project let go) ends the polling, never the process.
      const whenRead = () => {
        try {
          if (!db.open || inMemory()) return;
        } catch {
          return;
        }
        setTimeout(whenRead, WARM_POLL_MS).unref();
      };
      if (store()) setTimeout(whenRead, WARM_POLL_MS).unref();
    },
  };
}
