// Keeps the store's whole-file BM25 statistics (storage/graph/terms.ts) in step with the index: after an index run,
// the source files whose content hash changed are read and counted again, removed ones are taken out. A ranking then
// reads only its query terms' postings instead of reading and tokenizing every file on its first call.
import { realpathSync } from "node:fs";

import { isCodeLanguage, type LanguageId } from "../repo/languages.js";
import { MAX_SCAN_FILE_BYTES, readInsideRoot } from "../repo/scan.js";
import type { Db } from "../storage/db.js";
import { knownFiles } from "../storage/graph/files.js";
import { fileLevelNodes, symbolsOfFile } from "../storage/graph/nodes.js";
import { type CountedFile, filesWithoutBodies, fileTermRows, writeFileTerms } from "../storage/graph/terms.js";
import { identifierTokens } from "../text/identifiers.js";
import { encodeSymbolBodies, ownTokens } from "../text/symbol-bodies.js";
import { bm25DocOfTokens } from "../text/term-counts.js";

/** Files counted per write transaction: bounds the memory a full build holds at once. */
const BATCH_FILES = 256;

/** The files whole-file BM25 ranks: the index's source files (code, not tests or rules) with their content hash. */
export function bm25SourceFiles(db: Db): { path: string; hash: string }[] {
  const hashes = knownFiles(db);
  const out: { path: string; hash: string }[] = [];
  for (const n of fileLevelNodes(db)) {
    if (n.type !== "file" || !isCodeLanguage(n.kind as LanguageId | null)) continue;
    const hash = hashes.get(n.path)?.hash;
    if (hash !== undefined) out.push({ path: n.path, hash });
  }
  return out;
}

/**
 * One file's counts: its whole-file BM25 terms and its symbols' own tokens, from one pass of tokenizing its lines
 * (the same lines and tokens a ranking would take from the file).
 */
function countFile(db: Db, path: string, hash: string, text: string): CountedFile {
  const lines = text.split("\n");
  const lineTokens = lines.map((l) => identifierTokens(l));
  const doc = bm25DocOfTokens(path, lineTokens.flat());
  const syms = symbolsOfFile(db, path);
  const own = ownTokens(syms, lines.length, (l) => lineTokens[l - 1]!);
  const bodies = syms.length ? encodeSymbolBodies(syms, own, [...doc.tf.keys()]) : undefined;
  return { path, hash, len: doc.len, tf: doc.tf, ...(bodies ? { bodies } : {}) };
}

/** Brings the stored counts in step with the index under `root`; returns how many files were read and removed. */
export function refreshFileTerms(db: Db, root: string): { read: number; removed: number } {
  const sources = bm25SourceFiles(db);
  const stored = new Map(fileTermRows(db).map((r) => [r.path, r]));
  const wanted = new Set(sources.map((s) => s.path));
  const removed = [...stored.keys()].filter((p) => !wanted.has(p));
  const bodiless = filesWithoutBodies(db);
  const stale = sources.filter((s) => stored.get(s.path)?.hash !== s.hash || bodiless.has(s.path));
  let realRoot: string | undefined;
  try {
    realRoot = realpathSync(root);
  } catch {
    realRoot = undefined;
  }
  for (let i = 0; i < stale.length || (i === 0 && removed.length > 0); i += BATCH_FILES) {
    const batch: CountedFile[] = stale.slice(i, i + BATCH_FILES).map((s) => {
      const text = realRoot ? readInsideRoot(realRoot, s.path, MAX_SCAN_FILE_BYTES) : undefined;
      if (text === undefined) return { path: s.path, hash: s.hash, len: -1, tf: undefined };
      return countFile(db, s.path, s.hash, text);
    });
    writeFileTerms(db, batch, i === 0 ? removed : []);
  }
  return { read: stale.length, removed: removed.length };
}
