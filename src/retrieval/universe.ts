// The file universe of one store: its file-level nodes with lookups by path, id, base name, flattened stem and path
// suffix, built once per ranker, and the path and module lookups the anchor channel makes in it.
import { isCodeLanguage, type LanguageId } from "../repo/languages.js";
import type { Db } from "../storage/db.js";
import { indexRunStamp } from "../storage/graph/counts.js";
import { fileLevelNodes, type FileNodeRef } from "../storage/graph/nodes.js";

/**
 * A flattened file stem (`stats-card.js` → `statscard`) shorter than this names nothing for a phrase anchor: short
 * stems (`util`, `main`) match prose words. Hand-set.
 */
const MIN_FLAT_STEM = 5;
/** A dotted module name matching more files than this is ambiguous and names none. Hand-set. */
const MODULE_MAX_FILES = 5;

/** The file universe of one database, built once per ranker. */
export interface Universe {
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

/**
 * The universe last built in this process, by store file and index run: a later connection to the same store (the
 * hook worker opens the store anew for every call) takes it until another index run ends, as a server keeps its
 * ranker (and its universe) for one index run. A store without a finished run, or in memory, is never shared.
 */
let shared: { file: string; stamp: string; universe: Universe } | undefined;

/** The store's universe: the one built for its last index run in this process, else built now. */
export function universeOf(db: Db): Universe {
  const file = db.name && db.name !== ":memory:" ? db.name : undefined;
  const stamp = file ? indexRunStamp(db) : undefined;
  if (file && stamp && shared?.file === file && shared.stamp === stamp) return shared.universe;
  const universe = buildUniverse(db);
  if (file && stamp) shared = { file, stamp, universe };
  return universe;
}

export function buildUniverse(db: Db): Universe {
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
    if (flat.length < MIN_FLAT_STEM) continue;
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

export const isSource = (n: FileNodeRef | undefined) =>
  !!n && n.type === "file" && isCodeLanguage(n.kind as LanguageId | null);

/** Files whose path ends with `suffix` on a segment boundary; leading segments are dropped until one matches. */
export function pathMatches(u: Universe, raw: string): string[] {
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

/** Files a dotted module path denotes, with how much of the name the file accounts for (0–1). */
export function moduleMatches(u: Universe, dotted: string): { path: string; frac: number }[] {
  const parts = dotted.split(".");
  for (let i = parts.length; i >= 1; i--) {
    const suffix = parts.slice(0, i).join("/");
    const hits = [...new Set([...(u.bySuffix.get(suffix) ?? []), ...(u.byIndexDir.get(suffix) ?? [])])];
    if (hits.length && hits.length <= MODULE_MAX_FILES)
      return hits.map((h) => ({ path: h.path, frac: i / parts.length }));
    if (hits.length > MODULE_MAX_FILES) return [];
  }
  return [];
}
