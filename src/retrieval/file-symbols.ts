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

/** `read`, keeping the last `max` files read. */
export function keptFileSymbols(read: ReadFileSymbols, max = FILES_KEPT): ReadFileSymbols {
  const kept = new Map<string, FileSymbols>();
  return (path) => {
    let f = kept.get(path);
    if (f) {
      kept.delete(path);
    } else {
      f = read(path);
      if (kept.size >= max) kept.delete(kept.keys().next().value!);
    }
    kept.set(path, f);
    return f;
  };
}
