// What symbol ranking reads of one file: its symbols and the bodies the index stored for them. Read through one
// function, so that a ranker can keep the files it has read: a store's index run replaces its ranker, and with it what
// the ranker kept.
import type { Db } from "../storage/db.js";
import { symbolsOfFile } from "../storage/graph/nodes.js";
import { storedSymbolBodies } from "../storage/graph/terms.js";
import { inflateSymbolBodies } from "../text/symbol-bodies.js";
import type { SymbolDef } from "./symbols.js";

export interface FileSymbols {
  syms: SymbolDef[];
  /**
   * The bodies the index stored (inflated; undefined when it kept none for the file) with the file's term list they
   * point into; absent when nothing is stored for the file's current content.
   */
  stored?: { terms: string; bodies: Buffer | undefined };
}

export type ReadFileSymbols = (path: string) => FileSymbols;

/** Reads a file's symbols and stored bodies from the store, every time. */
export function fileSymbolsReader(db: Db): ReadFileSymbols {
  return (path) => {
    const syms = symbolsOfFile(db, path);
    if (!syms.length) return { syms };
    const row = storedSymbolBodies(db, path);
    return row ? { syms, stored: { terms: row.terms, bodies: inflateSymbolBodies(row.bodies) } } : { syms };
  };
}

/**
 * Files a ranker keeps read, the most recently used: tasks in one project keep coming back to the same files, and a
 * large file's symbol rows and bodies are a few hundred kilobytes at most.
 */
export const FILES_KEPT = 128;

/**
 * `read`, keeping the last `max` files read, each with the hash the index recorded for it when it was read: a file kept
 * is read again once the store holds another content for it (an index run that wrote it and stopped before it ended
 * leaves the ranker in use). The hash is read first: a write landing between the two reads is seen at the next use.
 */
export function keptFileSymbols(
  read: ReadFileSymbols,
  hashOf: (path: string) => string | undefined,
  max = FILES_KEPT,
): ReadFileSymbols {
  const kept = new Map<string, { hash: string | undefined; f: FileSymbols }>();
  return (path) => {
    const hash = hashOf(path);
    let e = kept.get(path);
    if (e) kept.delete(path);
    if (!e || e.hash !== hash) {
      e = { hash, f: read(path) };
      if (kept.size >= max) kept.delete(kept.keys().next().value!);
    }
    kept.set(path, e);
    return e.f;
  };
}
