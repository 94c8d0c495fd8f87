// Builds the instance context graph of a repository: scan, parse changed files, write nodes in batches,
// then recompute the derived edges (imports, test_covers, precondition) and queue vectors.
import { z } from "zod";

import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { RepoParser } from "../repo/parse.js";
import { type KnownFile, type ScannedFile, scanRepo, SkipReason, underPaths } from "../repo/scan.js";
import type { Db } from "../storage/db.js";
import { optimizePlanner, refreshPlannerStats, writeTx } from "../storage/db.js";
import { graphCounts } from "../storage/graph/counts.js";
import { deleteFiles, fileCount, type FileRow, knownFiles, restampFiles } from "../storage/graph/files.js";
import { getMeta, setMeta } from "../storage/meta.js";
import { redactionRulesId } from "../text/redact.js";
import { type BuildRecord, markPhase, phaseComplete, readBuild, recordLastRun, startBuild } from "./build-state.js";
import { fileTermsOutOfStep, refreshFileTerms } from "./file-terms.js";

export const IndexPhase = z.enum(["scan", "parse", "edges", "done"]);
export type IndexPhase = z.infer<typeof IndexPhase>;

export const IndexProgress = z.object({
  phase: IndexPhase,
  done: z.number(),
  total: z.number(),
  symbols: z.number(),
  elapsedMs: z.number(),
});
export type IndexProgress = z.infer<typeof IndexProgress>;

export const IndexResult = z.object({
  root: z.string(),
  mode: z.enum(["git", "walk"]),
  files: z.object({
    scanned: z.number(),
    parsed: z.number(),
    unchanged: z.number(),
    deleted: z.number(),
    regexFallback: z.number(),
    /** Files over the per-file parse budget (a pathological shape or parse time), indexed lexically. */
    overBudget: z.number(),
  }),
  symbols: z.number(),
  skipped: z.record(SkipReason, z.number()),
  counts: z.object({ nodes: z.record(z.string(), z.number()), edges: z.record(z.string(), z.number()) }),
  ms: z.object({ scan: z.number(), parse: z.number(), edges: z.number(), total: z.number() }),
  filesPerSecond: z.number(),
  cancelled: z.boolean(),
  /** This run's build record: its phases are marked complete only while it is the latest build. */
  buildId: z.string(),
});
export type IndexResult = z.infer<typeof IndexResult>;

export interface IndexOptions {
  db: Db;
  projectId: number;
  root: string;
  logger: Logger;
  /** Reuse a parser across runs (the watcher does); otherwise one is created and disposed. */
  parser?: RepoParser;
  maxFileBytes?: number;
  exclude?: string[];
  /**
   * Only these repo paths (files, or folders for everything under them) are looked at: what a watcher saw change.
   * A path that is gone (or no longer indexable) is removed; nothing else is scanned, unless an ignore file
   * (.gitignore, .memcardsignore) is among them or the index is empty or unfinished: then the whole tree is.
   */
  paths?: readonly string[];
  /** Files written per transaction: a killed run keeps every finished batch. */
  batchFiles?: number;
  isCancelled?: () => boolean;
  onProgress?: (p: IndexProgress) => void;
}

/** Files that say which files a scan takes in (see repo/scan.ts): a change to one is no change of its path alone. */
const SCAN_RULE_FILES = new Set([".gitignore", ".memcardsignore"]);
/** Meta key: the redaction rules every indexed path was last checked with (see `redactionRulesId`). */
const PATHS_CHECKED_WITH = "index.redaction_rules";
/** Changed files from which a build refreshes the planner's statistics outright. */
const BULK_CHANGE = 50;
/**
 * How long after a file's mtime its stamp is trusted for the content read: a write within the same clock tick
 * (coarse on some file systems, seconds on others) leaves the mtime as it was, so a stamp this recent is not recorded.
 */
const RACY_STAMP_MS = 2000;

/** What a scan found against what the index keeps. */
export interface ScanOutcome {
  scan: ReturnType<typeof scanRepo>;
  /** The paths this run looks at, or undefined for the whole tree. */
  paths: readonly string[] | undefined;
  known: ReturnType<typeof knownFiles>;
  removed: string[];
  changed: ScannedFile[];
  /** Files the index holds once this run is through. */
  totalFiles: number;
  /** The previous build did not write its derived edges. */
  edgesOwed: boolean;
  /** When the scan started (wall clock, ms). */
  startedAt: number;
  ms: number;
}

/** What the parse phase wrote. */
export interface ParseOutcome {
  parsed: number;
  symbols: number;
  regexFallback: number;
  overBudget: number;
  cancelled: boolean;
}

/** A run that keeps its standing build parses nothing. */
const NOTHING_PARSED: Readonly<ParseOutcome> = {
  parsed: 0,
  symbols: 0,
  regexFallback: 0,
  overBudget: 0,
  cancelled: false,
};

export type Progress = (phase: IndexPhase, done: number, total: number, symbols: number) => void;

/**
 * Indexes (or re-indexes) the repository at `root` into `db`. Unchanged files (same size, mtime, inode and change
 * time as recorded with their hash) are not read or parsed; removed files are deleted; derived edges are recomputed when anything changed, and
 * all of them when the previous build did not finish its edge phase. Batches commit as they go and each finished
 * phase is recorded, so a killed run resumes where it stopped.
 */
export async function indexRepository(opts: IndexOptions): Promise<IndexResult> {
  const { db } = opts;
  const t0 = performance.now();
  const elapsed = () => Math.round(performance.now() - t0);
  const progress: Progress = (phase, done, total, symbols) =>
    opts.onProgress?.({ phase, done, total, symbols, elapsedMs: elapsed() });

  progress("scan", 0, 0, 0);
  const found = scanChanges(opts, elapsed);
  // Nothing changed since a finished build: that build stands (no new record, no edge or BM25 pass).
  const standing = unchangedBuild(db, found);
  // Unchanged content under a new stamp (a checkout, a copy): recorded once, so later scans skip reading it.
  const touched = restamped(found);
  // A stamp from the last clock tick may be shared by a write made after the read: recorded at a later run.
  restampFiles(
    db,
    touched.filter((f) => Math.max(f.mtimeMs, f.ctimeMs) < found.startedAt - RACY_STAMP_MS),
  );
  const build = standing ?? startBuild(db, found.totalFiles);
  if (!standing) dropRemoved(db, found);
  // The parser, the import resolvers and the writers load only for a run that has something to write.
  const changes = standing ? undefined : await import("./index-changes.js");

  const parsed = changes ? await changes.parseChanged(opts, found.changed, progress) : NOTHING_PARSED;
  const tParse = elapsed();
  if (!parsed.cancelled && !standing) markPhase(db, build.id, "parse", true);

  if (!parsed.cancelled && changes)
    changes.deriveAfterParse(db, opts.root, found, () => progress("edges", 0, 1, parsed.symbols));
  // Files that could not be read are read again at every run, changed or not; so are files touched since the last
  // run (a save during that run may have been counted, then undone) and any count out of step with the index (one
  // taken from a save undone under its old time, counts a newer store format dropped).
  else if (standing && (touched.length > 0 || fileTermsOutOfStep(db))) refreshFileTerms(db, opts.root);
  refreshStats(db, found);
  const tEdges = elapsed();
  if (!parsed.cancelled && !standing) markPhase(db, build.id, "edges", true);
  recordLastRun(db, { at: new Date().toISOString(), files: found.totalFiles, parsed: parsed.parsed, ms: tEdges });
  // A run that wrote edges counts them again; one that kept its standing build reads the counts it kept.
  const counts = graphCounts(db, { keep: true, recount: !standing });
  progress("done", parsed.parsed, found.changed.length, parsed.symbols);
  const total = elapsed();
  return {
    root: found.scan.root,
    mode: found.scan.mode,
    files: {
      scanned: found.scan.files.length,
      parsed: parsed.parsed,
      unchanged: found.scan.files.length - found.changed.length,
      deleted: found.removed.length,
      regexFallback: parsed.regexFallback,
      overBudget: parsed.overBudget,
    },
    symbols: parsed.symbols,
    skipped: found.scan.skipped,
    counts: { nodes: counts.nodes, edges: counts.edges },
    ms: { scan: found.ms, parse: tParse - found.ms, edges: tEdges - tParse, total },
    filesPerSecond: total > 0 ? Math.round((parsed.parsed / total) * 1000) : 0,
    cancelled: parsed.cancelled,
    buildId: build.id,
  };
}

/**
 * Scans the tree (or only `opts.paths`) against the stored files: which changed, which are gone. Some paths stand
 * for a whole scan only over a complete index: after a build that stopped before it parsed everything (cancelled,
 * killed, overtaken by another run), or on an empty one, the whole tree is scanned. So is it when an ignore file
 * changed, which changes what the whole tree takes in.
 */
function scanChanges(opts: IndexOptions, elapsed: () => number): ScanOutcome {
  const { db, logger } = opts;
  // An earlier build stopped before its edges were written: rebuild them all, whatever changed since.
  const edgesOwed = !phaseComplete(db, "edges");
  const known = knownFiles(db);
  const paths =
    !phaseComplete(db, "parse") ||
    known.size === 0 ||
    opts.paths?.some((p) => SCAN_RULE_FILES.has(p.slice(p.lastIndexOf("/") + 1)))
      ? undefined
      : opts.paths;
  const startedAt = Date.now();
  const scan = scanRepo(opts.root, {
    // Content is read by whoever parses (this thread or the parse worker), checked against the scan's hash.
    withContent: false,
    known: Object.fromEntries([...known].map(([p, r]) => [p, knownStamp(r)])),
    ...(opts.maxFileBytes ? { maxFileBytes: opts.maxFileBytes } : {}),
    ...(opts.exclude ? { exclude: opts.exclude } : {}),
    ...(paths ? { paths: [...paths] } : {}),
    // Indexed paths were checked for secrets when indexed: again only if the rules changed since.
    knownPathsChecked: getMeta(db, PATHS_CHECKED_WITH) === redactionRulesId(),
  });
  const ms = elapsed();
  const present = new Set(scan.files.map((f) => f.path));
  const inScope = paths ? underPaths(paths) : () => true;
  const removed = [...known.keys()].filter((p) => inScope(p) && !present.has(p));
  const changed = scan.files.filter((f) => !f.unchanged);
  // A scan of some paths stands for the whole index: the files kept, less those removed, plus those added.
  const totalFiles = paths
    ? known.size - removed.length + changed.filter((f) => !known.has(f.path)).length
    : scan.files.length;
  logger.debug("index.scan", { files: scan.files.length, changed: changed.length, removed: removed.length, ms });
  if (edgesOwed && known.size > 0) logger.info("the previous index did not finish; its derived edges are rebuilt");
  return { scan, paths, known, removed, changed, totalFiles, edgesOwed, startedAt, ms };
}

/**
 * The latest build when this scan found nothing to do: no file changed or removed, its parse and edge phases
 * finished, its file count the scan's and the paths it checked checked under today's redaction rules.
 */
function unchangedBuild(db: Db, found: ScanOutcome): BuildRecord | undefined {
  if (found.changed.length || found.removed.length || found.known.size === 0 || found.edgesOwed) return undefined;
  const rec = readBuild(db);
  if (!rec || !rec.complete.includes("parse") || !rec.complete.includes("edges")) return undefined;
  if (rec.files !== found.totalFiles) return undefined;
  if (!found.paths && getMeta(db, PATHS_CHECKED_WITH) !== redactionRulesId()) return undefined;
  return rec;
}

/** A stored file's stamp as the scan compares it (an inode or change time never recorded is left out). */
function knownStamp(r: FileRow): KnownFile {
  return {
    size: r.size,
    mtimeMs: r.mtime_ms,
    hash: r.hash,
    ...(r.ino === null ? {} : { ino: r.ino }),
    ...(r.ctime_ms === null ? {} : { ctimeMs: r.ctime_ms }),
  };
}

/** The unchanged files whose stamp (size, mtime, inode, change time) differs from the stored one. */
function restamped(found: ScanOutcome): ScannedFile[] {
  return found.scan.files.filter((f) => {
    const k = f.unchanged ? found.known.get(f.path) : undefined;
    return (
      k !== undefined && (k.size !== f.size || k.mtime_ms !== f.mtimeMs || k.ino !== f.ino || k.ctime_ms !== f.ctimeMs)
    );
  });
}

/** Deletes the files that are gone; after a whole scan, records the redaction rules every kept path passed. */
function dropRemoved(db: Db, found: ScanOutcome): void {
  if (found.removed.length) writeTx(db, () => deleteFiles(db, found.removed));
  // A whole scan checked (and the removals above dropped) every path the index keeps: record with which rules.
  if (!found.paths) setMeta(db, PATHS_CHECKED_WITH, redactionRulesId());
}

/** A bulk change gets fresh planner statistics; a few files (the watcher's edits) only the cheap staleness check. */
function refreshStats(db: Db, found: ScanOutcome): void {
  const { changed, removed, known } = found;
  if (changed.length + removed.length >= BULK_CHANGE || (known.size === 0 && changed.length)) refreshPlannerStats(db);
  else if (changed.length || removed.length) optimizePlanner(db);
}

/** Throws NOT_INDEXED when the graph has never been built for this database. */
export function assertIndexed(db: Db): void {
  if (fileCount(db) === 0) {
    throw new AppError(
      "NOT_INDEXED",
      "this project has no context graph yet; run build_context_graph (or `memcards index`) first",
    );
  }
}
