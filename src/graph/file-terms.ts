// Keeps the store's whole-file BM25 statistics (storage/graph/terms.ts) in step with the index: after an index run,
// the source files whose content hash changed are read and counted again, removed ones are taken out. A ranking then
// reads only its query terms' postings instead of reading and tokenizing every file on its first call.
import { realpathSync } from "node:fs";

import { isCodeLanguage, type LanguageId } from "../repo/languages.js";
import { MAX_SCAN_FILE_BYTES, readInsideRootHashed } from "../repo/scan.js";
import type { Db } from "../storage/db.js";
import { knownFiles } from "../storage/graph/files.js";
import { fileLevelNodes, fileLevelNodesAt, fileNodesByLanguage, symbolsOfFile } from "../storage/graph/nodes.js";
import {
  type CountedFile,
  filesWithoutBodies,
  fileTermCount,
  fileTermRows,
  fileTermRowsAt,
  hasStaleFileTerms,
  writeFileTerms,
} from "../storage/graph/terms.js";
import { identifierTokens } from "../text/identifiers.js";
import { redact } from "../text/redact.js";
import { encodeSymbolBodies, ownTokens, type SymbolSpan } from "../text/symbol-bodies.js";
import { bm25DocOfTokens } from "../text/term-counts.js";

/** Files counted per write transaction: bounds the memory a full build holds at once. */
const BATCH_FILES = 256;

/** The files whole-file BM25 ranks: the index's source files (code, not tests or rules) with their content hash. */
export function bm25SourceFiles(db: Db): { path: string; hash: string }[] {
  const hashes = knownFiles(db);
  const out: { path: string; hash: string }[] = [];
  for (const n of fileLevelNodes(db)) {
    if (!isBm25Source(n.type, n.kind)) continue;
    const hash = hashes.get(n.path)?.hash;
    if (hash !== undefined) out.push({ path: n.path, hash });
  }
  return out;
}

/**
 * One file's counts: its whole-file BM25 terms and its symbols' own tokens, from one pass of tokenizing its lines
 * (the lines and tokens a ranking would take from the file, secrets redacted). `text` is `raw` redacted, `lineTokens`
 * the tokens of each of its lines; `syms` the file's symbols as the index holds them.
 */
export function countTerms(
  path: string,
  hash: string,
  raw: string,
  text: string,
  lineTokens: readonly (readonly string[])[],
  syms: readonly SymbolSpan[],
): CountedFile {
  const doc = bm25DocOfTokens(path, lineTokens.flat());
  const own = ownTokens(syms, lineTokens.length, (l) => lineTokens[l - 1]!);
  // Bodies only where redaction kept the lines in place (the symbols' spans are the file's lines).
  const inPlace = text === raw || lineTokens.length === raw.split("\n").length;
  const bodies = syms.length && inPlace ? encodeSymbolBodies(syms, own, [...doc.tf.keys()]) : undefined;
  return { path, hash, len: doc.len, tf: doc.tf, ...(bodies ? { bodies } : {}) };
}

/** A file read again for its counts: redacted, tokenized by line, its symbols read from the index. */
function countFile(db: Db, path: string, hash: string, raw: string): CountedFile {
  // Counted on the redacted text, as the index stores a file's symbols: a secret's tokens never reach the store.
  const text = redact(raw);
  const lineTokens = text.split("\n").map((l) => identifierTokens(l));
  return countTerms(path, hash, raw, text, lineTokens, symbolsOfFile(db, path));
}

/** Whether whole-file BM25 counts a file of this node type and language (see `bm25SourceFiles`). */
export function isBm25Source(type: string, language: string | null): boolean {
  return type === "file" && isCodeLanguage(language as LanguageId | null);
}

/**
 * Whether the stored counts are out of step with the index, as far as the store tells without reading a file: a
 * count taken under another content than the indexed one (a save counted during a run), an unread file, a count
 * for a file no longer indexed, or a source file with no count (counts a newer store format dropped). A run that
 * keeps its finished build still counts those again; files without symbol bodies are left to runs that parse.
 */
export function fileTermsOutOfStep(db: Db): boolean {
  if (hasStaleFileTerms(db)) return true;
  const sources = fileNodesByLanguage(db).reduce((sum, r) => sum + (isBm25Source("file", r.kind) ? r.n : 0), 0);
  return fileTermCount(db) !== sources;
}

/**
 * Brings the stored counts in step with the index under `root`; returns how many files were read and removed. With
 * `only` (the files a watcher's build wrote or removed), only their counts: each is read through its path, and the
 * rest of the index is not read (a count out of step elsewhere waits for a run over the whole tree).
 */
export function refreshFileTerms(db: Db, root: string, only?: readonly string[]): { read: number; removed: number } {
  const sources = only
    ? fileLevelNodesAt(db, only).flatMap((n) => (isBm25Source(n.type, n.kind) ? [{ path: n.path, hash: n.hash }] : []))
    : bm25SourceFiles(db);
  const stored = new Map((only ? fileTermRowsAt(db, only) : fileTermRows(db)).map((r) => [r.path, r]));
  const wanted = new Set(sources.map((s) => s.path));
  const removed = [...stored.keys()].filter((p) => !wanted.has(p));
  const bodiless = filesWithoutBodies(db, only);
  // A file that could not be read (refused, or replaced while it was read) is tried again at every run: its content
  // hash alone would keep it out of BM25 for good, where counting the files in a new process would read it.
  const stale = sources.filter((s) => {
    const row = stored.get(s.path);
    return row?.hash !== s.hash || row.len < 0 || bodiless.has(s.path);
  });
  let realRoot: string | undefined;
  try {
    realRoot = realpathSync(root);
  } catch {
    realRoot = undefined;
  }
  for (let i = 0; i < stale.length || (i === 0 && removed.length > 0); i += BATCH_FILES) {
    const batch: CountedFile[] = stale.slice(i, i + BATCH_FILES).map((s) => {
      const read = realRoot ? readInsideRootHashed(realRoot, s.path, MAX_SCAN_FILE_BYTES) : undefined;
      if (read === undefined) return { path: s.path, hash: s.hash, len: -1, tf: undefined };
      // Counted under the hash of what was read: a file changed since the scan (a save during the run) then does not
      // match the index, so the counts are not used, and the next run reads it again.
      return countFile(db, s.path, read.hash, read.text);
    });
    writeFileTerms(db, batch, i === 0 ? removed : []);
  }
  return { read: stale.length, removed: removed.length };
}
