// The writing side of an index run, loaded only when a scan found something to do: parse the changed files in
// batches (in a worker when many), write each batch in one transaction, then recompute the derived edges (imports,
// test_covers, precondition) and the whole-file BM25 counts.
import { createImportResolver, type ImportEdge } from "../repo/imports/resolve.js";
import { testCovers } from "../repo/imports/test-covers.js";
import { isTestPath, type LanguageId } from "../repo/languages.js";
import { readManifests } from "../repo/manifests.js";
import { ruleKindOf, ruleMatcher } from "../repo/rules.js";
import type { ScannedFile } from "../repo/scan.js";
import { ImportRef } from "../repo/symbols.js";
import type { Db } from "../storage/db.js";
import { writeTx } from "../storage/db.js";
import { graphCounts } from "../storage/graph/counts.js";
import { replaceEdges, replaceEdgesFrom } from "../storage/graph/edges.js";
import { fileImports, indexedPaths, knownFiles, writeFiles } from "../storage/graph/files.js";
import { fileNodeIdsByKey, ruleNodes } from "../storage/graph/nodes.js";
import { type CountedFile, writeFileTerms } from "../storage/graph/terms.js";
import { fileKey } from "./file-nodes.js";
import { refreshFileTerms } from "./file-terms.js";
import type { IndexOptions, ParseOutcome, Progress, ScanOutcome } from "./index-repository.js";
import { localPreparer, type PreparedFile, workerPreparer } from "./prepare.js";

/** From this many changed files on, parsing runs in a worker thread. */
const WORKER_THRESHOLD = 300;
/**
 * Whole-file counts held across batches before they are written: each write rewrites the postings of every term
 * its files use, so a large build writes them a few times rather than once per batch. Counts a killed run held are
 * taken again by the next run (see `refreshFileTerms`).
 */
const TERMS_WRITE_FILES = 1024;
/**
 * Distinct words (summed over files) held before the counts are written, however few files hold them: large files
 * with rich vocabularies write sooner, so what a run holds is bounded by their size, not only by their number.
 */
const TERMS_WRITE_WORDS = 1 << 19;

/**
 * Parses the changed files batch by batch and writes each batch in one transaction. Many files: parse in a worker
 * so the next batch is parsed while this one is written.
 */
export async function parseChanged(
  opts: IndexOptions,
  changed: ScannedFile[],
  progress: Progress,
): Promise<ParseOutcome> {
  const out: ParseOutcome = { parsed: 0, symbols: 0, regexFallback: 0, overBudget: 0, cancelled: false };
  // Nothing to parse: no parser (nor its worker) is started.
  if (changed.length === 0) return out;
  const batchSize = opts.batchFiles ?? 200;
  const counted: CountedFile[] = [];
  let countedWords = 0;
  const writeCounts = () => {
    if (counted.length) writeFileTerms(opts.db, counted, []);
    counted.length = 0;
    countedWords = 0;
  };
  const preparer = changed.length >= WORKER_THRESHOLD && !opts.parser ? workerPreparer() : localPreparer(opts.parser);
  try {
    const languages = [...new Set(changed.map((f) => f.language).filter((l): l is LanguageId => !!l))];
    await preparer.preload(languages);
    const batches: ScannedFile[][] = [];
    for (let i = 0; i < changed.length; i += batchSize) batches.push(changed.slice(i, i + batchSize));
    let ahead = batches[0] ? preparer.prepare(batches[0]) : undefined;
    for (let b = 0; b < batches.length; b++) {
      if (opts.isCancelled?.()) {
        out.cancelled = true;
        await ahead?.catch(() => undefined);
        break;
      }
      const batch = batches[b]!;
      const prepared = await ahead!;
      ahead = batches[b + 1] ? preparer.prepare(batches[b + 1]!) : undefined;
      for (const p of prepared) {
        out.symbols += p.symbols;
        if (p.fallback) out.regexFallback++;
        if (p.overBudget) out.overBudget++;
      }
      writeBatch(opts.db, opts.projectId, batch, prepared);
      // The batch's whole-file counts, taken from the tokens its nodes were made of: no file is read twice.
      for (const p of prepared) {
        if (!p.terms) continue;
        counted.push(p.terms);
        countedWords += p.terms.tf?.size ?? 0;
      }
      if (counted.length >= TERMS_WRITE_FILES || countedWords >= TERMS_WRITE_WORDS) writeCounts();
      for (const f of batch) f.content = undefined;
      out.parsed += batch.length;
      progress("parse", out.parsed, changed.length, out.symbols);
      await new Promise((r) => setImmediate(r));
    }
    writeCounts();
  } finally {
    await preparer.dispose();
  }
  return out;
}

/** One transaction per batch; the batch's FTS rows are written last, together. */
function writeBatch(db: Db, projectId: number, batch: ScannedFile[], prepared: PreparedFile[]): void {
  const byPath = new Map(batch.map((f) => [f.path, f]));
  writeTx(db, () =>
    writeFiles(
      db,
      projectId,
      prepared.map((p) => {
        const file = byPath.get(p.path)!;
        return {
          file: {
            path: file.path,
            language: file.language,
            size: file.size,
            mtimeMs: file.mtimeMs,
            ino: file.ino,
            ctimeMs: file.ctimeMs,
            hash: file.hash,
            isTest: isTestPath(file.path, file.language),
          },
          parser: p.parser,
          imports: p.imports,
          nodes: p.nodes,
        };
      }),
    ),
  );
}

/**
 * Recomputes the derived edges when anything changed (or the previous build owes them), then the whole-file BM25
 * counts. Only modified files, none added, removed or a rule: re-resolve just their edges; else rebuild all.
 */
export function deriveAfterParse(db: Db, root: string, found: ScanOutcome, onEdges: () => void): void {
  const { changed, removed, known, edgesOwed } = found;
  if (changed.length || removed.length || known.size === 0 || edgesOwed) {
    onEdges();
    const onlyModified =
      !edgesOwed &&
      removed.length === 0 &&
      changed.every((f) => known.has(f.path) && !ruleKindOf(f.path)) &&
      known.size > 0;
    if (onlyModified)
      updateDerivedEdges(
        db,
        root,
        changed.map((f) => f.path),
      );
    else rebuildDerivedEdges(db, root);
  }
  // The whole-file BM25 counts follow the files (only changed ones are read again); a build of a few paths (a
  // watcher's) looks up the counts of just the files it wrote or removed. After a run stopped before its counts were
  // in step (edges owed: the files it removed are no longer in its scope), all of them are checked.
  const only = found.paths && !edgesOwed ? [...changed.map((f) => f.path), ...removed] : undefined;
  refreshFileTerms(db, root, only);
}

/**
 * Every indexed file (or those of `only`) with its stored import refs; a stored entry that is not an import ref is
 * skipped.
 */
export function indexedImports(
  db: Db,
  only?: readonly string[],
): { path: string; imports: ImportRef[]; is_test: number }[] {
  return fileImports(db, only).map((f) => ({
    ...f,
    imports: f.imports.flatMap((ref) => {
      const parsed = ImportRef.safeParse(ref);
      return parsed.success ? [parsed.data] : [];
    }),
  }));
}

/** Recomputes imports, test_covers and precondition edges from stored import refs and rule files. */
export function rebuildDerivedEdges(db: Db, root: string): void {
  const files = indexedImports(db);
  const paths = files.map((f) => f.path);
  const resolve = createImportResolver(paths, readManifests(root, paths));
  const importEdges: ImportEdge[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    for (const ref of f.imports) {
      for (const to of resolve(f.path, ref)) {
        const k = `${f.path}\0${to}`;
        if (seen.has(k)) continue;
        seen.add(k);
        importEdges.push({ from: f.path, to });
      }
    }
  }
  const covers = testCovers(paths, importEdges);
  const ids = fileNodeIdsByKey(db);
  const id = (p: string) => ids.get(fileKey(p));
  const edges: { src: number; dst: number; type: string; weight: number }[] = [];
  for (const e of importEdges) {
    const s = id(e.from);
    const d = id(e.to);
    if (s !== undefined && d !== undefined) edges.push({ src: s, dst: d, type: "imports", weight: 1 });
  }
  for (const c of covers) {
    const s = id(c.test);
    const d = id(c.target);
    if (s !== undefined && d !== undefined) {
      edges.push({ src: s, dst: d, type: "test_covers", weight: c.via === "name" ? 1 : 0.7 });
    }
  }
  for (const r of ruleNodes(db)) {
    const kind = ruleKindOf(r.path);
    if (!kind) continue;
    const matches = ruleMatcher({
      path: r.path,
      kind,
      dir: r.meta.dir ?? "",
      globs: r.meta.globs,
      alwaysApply: r.meta.alwaysApply === true,
      body: "",
    });
    for (const p of paths) {
      if (p === r.path || ruleKindOf(p)) continue;
      const d = id(p);
      if (d !== undefined && matches(p)) edges.push({ src: r.id, dst: d, type: "precondition", weight: 1 });
    }
  }
  // One edge per (src, type, dst): keep the strongest (a test both named after and importing its target).
  const best = new Map<string, (typeof edges)[number]>();
  for (const e of edges) {
    const k = `${e.src}:${e.type}:${e.dst}`;
    const prev = best.get(k);
    if (!prev || prev.weight < e.weight) best.set(k, e);
  }
  writeTx(db, () => replaceEdges(db, ["imports", "test_covers", "precondition"], [...best.values()]));
}

/** Re-resolves the imports and test_covers edges leaving the given (modified, not added) files. */
export function updateDerivedEdges(db: Db, root: string, changedPaths: readonly string[]): void {
  const paths = indexedPaths(db);
  const files = indexedImports(db, changedPaths);
  const resolve = createImportResolver(paths, readManifests(root, paths));
  const changedSet = new Set(changedPaths);
  const ids = fileNodeIdsByKey(db);
  const id = (p: string) => ids.get(fileKey(p));
  const importEdges: ImportEdge[] = [];
  for (const f of files) {
    const seen = new Set<string>();
    for (const ref of f.imports) {
      for (const to of resolve(f.path, ref)) {
        if (seen.has(to)) continue;
        seen.add(to);
        importEdges.push({ from: f.path, to });
      }
    }
  }
  const covers = testCovers(paths, importEdges).filter((c) => changedSet.has(c.test));
  writeTx(db, () => {
    for (const p of changedPaths) {
      const src = id(p);
      if (src === undefined) continue;
      const imports = importEdges
        .filter((e) => e.from === p)
        .flatMap((e) => {
          const d = id(e.to);
          return d === undefined ? [] : [{ dst: d, weight: 1 }];
        });
      replaceEdgesFrom(db, src, "imports", imports);
      const best = new Map<number, number>();
      for (const c of covers.filter((c) => c.test === p)) {
        const d = id(c.target);
        if (d !== undefined) best.set(d, Math.max(best.get(d) ?? 0, c.via === "name" ? 1 : 0.7));
      }
      replaceEdgesFrom(
        db,
        src,
        "test_covers",
        [...best].map(([dst, weight]) => ({ dst, weight })),
      );
    }
  });
}

/**
 * Runs the reads every incremental build makes over the whole index (the stored files, the file nodes, the import
 * resolver's inputs, the graph's counts) and drops what they return: a process that starts watching
 * pays for reading those pages into its connection's cache, and for compiling those paths, before the first edit
 * instead of during it.
 */
export function warmEditPath(db: Db, root: string): void {
  knownFiles(db);
  const paths = indexedPaths(db);
  createImportResolver(paths, readManifests(root, paths));
  testCovers(paths, []);
  fileNodeIdsByKey(db);
  graphCounts(db);
}
