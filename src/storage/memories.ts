// Memory units and the raw turn archive. Every text written here is redacted first, whoever the caller.
import { z } from "zod";

import { identifierTokens } from "../text/identifiers.js";
import { redact, redactJson } from "../text/redact.js";
import type { Db } from "./db.js";
import { checkpointWal, stmt } from "./db.js";
import { edgesChanged } from "./graph/counts.js";
import { decodeJson, decodeJsonOrFail } from "./json.js";
import { type Evidence, MemoryEvidence, MemoryFiles, MemoryRecord } from "./memory-columns.js";
import { getMeta, setMeta } from "./meta.js";
import { nearestVectors, noteVectorWrite } from "./vectors.js";

/** A memory unit with its JSON columns decoded. */
export interface MemoryRow {
  id: number;
  project_id: number;
  session_id: string | null;
  category: string;
  text: string;
  record: MemoryRecord;
  merge_key: string;
  confidence: number;
  importance: number;
  tier: string;
  status: string;
  superseded_by: number | null;
  conflicts_with: number | null;
  evidence: Evidence[];
  files: string[];
  created_at: string;
  updated_at: string;
}

type StoredMemory = Omit<MemoryRow, "record" | "evidence" | "files"> & {
  record: string;
  evidence: string;
  files: string;
};

/** Decodes a row's JSON columns; a column that is not JSON of its shape fails with DB_CORRUPT. */
function decodeMemory(r: StoredMemory): MemoryRow {
  const where = (column: string) => ({ table: "memories", column, id: r.id });
  return {
    ...r,
    record: decodeJsonOrFail(MemoryRecord, r.record, where("record")),
    evidence: decodeJsonOrFail(MemoryEvidence, r.evidence, where("evidence")),
    files: decodeJsonOrFail(MemoryFiles, r.files, where("files")),
  };
}

/**
 * Decodes a row's JSON columns for the viewer's listings: a damaged column reads as empty, so one bad unit never
 * fails a page and stays listed where it can be forgotten.
 */
function decodeMemoryLeniently(r: StoredMemory): MemoryRow {
  return {
    ...r,
    record: decodeJson(MemoryRecord, r.record) ?? {},
    evidence: decodeJson(MemoryEvidence, r.evidence) ?? [],
    files: decodeJson(MemoryFiles, r.files) ?? [],
  };
}

/** Stores a JSON column redacted (every string in it, keys too). */
const encodeRedacted = (value: unknown) => redactJson(JSON.stringify(value));

/** Units of a category with this merge key that are still in force (active or in conflict). */
export function memoriesByKey(db: Db, projectId: number, category: string, key: string): MemoryRow[] {
  return (
    stmt(
      db,
      "SELECT * FROM memories WHERE project_id = ? AND category = ? AND merge_key = ? AND status != 'superseded' ORDER BY id DESC",
    ).all(projectId, category, key) as StoredMemory[]
  ).map(decodeMemory);
}

/** Documents counted per term when judging how rare it is: enough to rank terms, bounded on any store. */
const RARITY_CAP = 64;
/** Distinct words weighed per check: more than a unit's text holds (units are a few sentences). */
const MAX_SIMILAR_TERMS = 512;

/** A unit in force as a duplicate or contradiction check reads it: no JSON column decoded. */
export interface SimilarUnit {
  id: number;
  status: string;
  text: string;
  confidence: number;
}

/**
 * Every unit of a category still in force (active or in conflict) whose words could reach `minJaccard` with
 * `words` (the distinct words of the unit being checked; `self`, that unit's id when it is already stored, is left
 * out) and that `accept` takes (the caller measures the overlap; it runs while the index is walked, so it must not
 * query the store), best first. A unit that shares at least that fraction lacks at most `a − ⌈minJaccard·a⌉` of the
 * `a` words, and words no other unit holds count against that allowance. So it holds at least one of the rarest
 * allowance + 1 words, and, when that allowance is small, at least two of the rarest allowance + 2: the full-text
 * index is asked for those words (or those pairs) and nothing that could match is missed among the newest `newest`
 * (MAX_CANDIDATES) units of the project and category that hold them and that `accept` takes, within the newest
 * MAX_READ_PER_CANDIDATE times as many units of the category holding them that the walk visits (other projects' units
 * count too, superseded ones are indexed apart: the walk's cost is bounded whatever the store holds). Each term's
 * count stops at RARITY_CAP (past it, how far into the store its first RARITY_CAP units reach).
 */
export function similarMemories(
  db: Db,
  projectId: number,
  category: string,
  words: Iterable<string>,
  minJaccard: number,
  opts: { self?: number; accept?: (u: SimilarUnit) => boolean; newest?: number } = {},
): SimilarUnit[] {
  const all = [...new Set(words)];
  if (!all.length) return [];
  // Words the index cannot hold (a character its tokenizer splits on) are lacked by every unit. Combining marks
  // (Devanagari vowel signs, a decomposed accent) are part of a word both here and in the index.
  const searchable = all.filter((w) => /^[\p{L}\p{M}\p{N}_$]+$/u.test(w));
  const terms = searchable.slice(0, MAX_SIMILAR_TERMS);
  const self = opts.self ?? 0;
  // A term's first RARITY_CAP + 1 units (in id order, as the index keeps them): their number, and the highest id
  // among them. Past the cap, the term that needs the longer stretch of ids to reach it is the rarer.
  const count = stmt(
    db,
    `SELECT count(*) AS n, max(rowid) AS high FROM
       (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? AND rowid != ? LIMIT ?)`,
  );
  const quote = (t: string) => `"${t}"`;
  const capped = cappedTerms(db);
  const counted = terms.map((t) => {
    const high = capped.get(t);
    // A term past the cap whose first units all precede the unit checked: they are still its first ones.
    if (high !== undefined && (self === 0 || self > high)) return { t: quote(t), n: RARITY_CAP + 1, high };
    const c = count.get(quote(t), self, RARITY_CAP + 1) as { n: number; high: number };
    if (c.n > RARITY_CAP && (self === 0 || self > c.high)) keepCapped(capped, t, c.high);
    return { t: quote(t), ...c };
  });
  const present = counted.filter((x) => x.n > 0).sort((a, b) => a.n - b.n || (a.n > RARITY_CAP ? b.high - a.high : 0));
  const lacked = all.length - searchable.length + (counted.length - present.length);
  const allowance = all.length - Math.ceil(minJaccard * all.length - 1e-9) - lacked;
  if (allowance < 0 || !present.length) return [];
  let match: string;
  if (allowance <= MAX_PAIRED_ALLOWANCE && present.length >= allowance + 2) {
    // At least two of them: each word with any rarer-listed one after it (every pair, each word iterated once per
    // group instead of once per pair).
    const rare = present.slice(0, allowance + 2).map((x) => x.t);
    const pairs: string[] = [];
    for (let i = 0; i + 1 < rare.length; i++) pairs.push(`(${rare[i]} AND (${rare.slice(i + 1).join(" OR ")}))`);
    match = pairs.join(" OR ");
  } else {
    match = present
      .slice(0, allowance + 1)
      .map((x) => x.t)
      .join(" OR ");
  }
  // The newest in-scope matches first, at most `newest` (MAX_CANDIDATES) that `accept` takes: the full-text index is
  // walked newest first and each match is looked up by id. A unit `accept` turns down (one that shares the rare words
  // but not enough of the others) does not use up that allowance, so a near-duplicate behind many such units is still
  // found. Every unit the walk visits counts towards its bound (MAX_READ_PER_CANDIDATE times `newest`): those of other
  // projects and those superseded too, which a store whose subjects are often revised holds in the thousands behind
  // the few in force. The category is the first word of every unit's indexed text (`indexMemory`), so it narrows the
  // match in the index itself: asked as the first word only (`^`), so a unit whose text merely holds that word (a
  // superseded one, one of another category) is not visited.
  const scoped = /^[\p{L}\p{N}_$]+$/u.test(category) ? `(${match}) AND ^${quote(category.toLowerCase())}` : match;
  const newest = opts.newest ?? MAX_CANDIDATES;
  const visits = newest * MAX_READ_PER_CANDIDATE;
  const units: SimilarUnit[] = [];
  let visited = 0;
  for (const v of stmt(
    db,
    `SELECT m.id, m.project_id AS projectId, m.category, m.status, m.text, m.confidence
       FROM memories_fts f JOIN memories m ON m.id = f.rowid
       WHERE memories_fts MATCH ? AND f.rowid != ? ORDER BY f.rowid DESC`,
  ).iterate(scoped, self) as IterableIterator<SimilarUnit & { projectId: number; category: string }>) {
    if (v.projectId === projectId && v.category === category && v.status !== "superseded") {
      const u: SimilarUnit = { id: v.id, status: v.status, text: v.text, confidence: v.confidence };
      if (!opts.accept || opts.accept(u)) units.push(u);
    }
    if (units.length >= newest || ++visited >= visits) break;
  }
  if (units.length < 2) return units;
  // Several match: ranked by BM25 over the rarer half (plus one) of the words, counted with the unit itself, the
  // newest first among equals. Only words held by at most RARITY_CAP units rank: BM25 counts every unit holding each
  // of its words, so a word most units hold would make each write walk most of the index. When none of the rarer
  // words is that rare, the candidates stay newest first.
  const byRarity = counted
    .map((x) => ({ ...x, n: Math.min(x.n + (self ? 1 : 0), RARITY_CAP + 1) }))
    .filter((x) => x.n > 0)
    .sort((a, b) => a.n - b.n)
    .slice(0, Math.floor(terms.length / 2) + 1)
    .filter((x) => x.n <= RARITY_CAP);
  if (!byRarity.length) return units;
  // One walk of the index over the candidates' stretch of ids (a list of ids would be one query, and one count of
  // each term's units for BM25, per id), keeping the candidates.
  const ids = new Set(units.map((u) => u.id));
  const order = (
    stmt(
      db,
      `SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? AND rowid >= ? AND rowid <= ?
       ORDER BY bm25(memories_fts), rowid DESC`,
    )
      .pluck()
      .all(byRarity.map((x) => x.t).join(" OR "), units.at(-1)!.id, units[0]!.id) as number[]
  ).filter((id) => ids.has(id));
  const rank = new Map(order.map((id, i) => [id, i]));
  return units.sort((a, b) => (rank.get(a.id) ?? order.length) - (rank.get(b.id) ?? order.length) || b.id - a.id);
}

/**
 * Per connection, each term whose first RARITY_CAP + 1 units (in id order) were counted, with the highest id among
 * them. A unit added later has a higher id (ids are never reused), so the term's first units stay the same while the
 * store only grows and the count need not be asked again: on a large store most of a unit's words are such common
 * terms, and their counts were a share of each check that grew with the index. What can take a term from its first
 * units clears it: a delete or a reword on this connection (all terms), a unit set superseded (its category's word,
 * which its indexed text loses; all terms when it answered a request, whose words it loses too), and any commit of
 * another connection (`data_version`). A write rolled back after a count can leave a term counted as more common than
 * it is: it changes only which words a check asks for and ranks by.
 */
const cappedByDb = new WeakMap<Db, { version: number; terms: Map<string, number> }>();
/** Terms kept per connection at most (the map starts again past it): far more than a project's common words. */
const MAX_CAPPED_TERMS = 50_000;

function cappedTerms(db: Db): Map<string, number> {
  const version = db.pragma("data_version", { simple: true }) as number;
  let c = cappedByDb.get(db);
  if (!c || c.version !== version) cappedByDb.set(db, (c = { version, terms: new Map() }));
  return c.terms;
}

function keepCapped(m: Map<string, number>, term: string, high: number): void {
  if (m.size >= MAX_CAPPED_TERMS) m.clear();
  m.set(term, high);
}

/** Pairs of rare words are asked for while they are few (at most 28 pairs); past that, any of the rare words. */
const MAX_PAIRED_ALLOWANCE = 6;
/**
 * Units a check returns at most (those its `accept` takes), newest first: it binds only on a store full of
 * near-copies, where it keeps a write's cost flat (hand-set). A near-duplicate older than MAX_READ_PER_CANDIDATE
 * times as many units of its category in force holding its rarest words (other projects' included) is not found:
 * the write adds a unit instead of merging.
 */
const MAX_CANDIDATES = 128;
/**
 * Units a check's walk visits at most, per unit it may return: those it turns down and other projects' included
 * (hand-set).
 */
const MAX_READ_PER_CANDIDATE = 4;

export function insertMemory(db: Db, m: Omit<MemoryRow, "id">): number {
  return Number(
    stmt(
      db,
      `INSERT INTO memories (project_id, session_id, category, text, record, merge_key, confidence, importance, tier, status,
         superseded_by, conflicts_with, evidence, files, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      m.project_id,
      m.session_id,
      m.category,
      redact(m.text),
      encodeRedacted(m.record),
      redact(m.merge_key),
      m.confidence,
      m.importance,
      m.tier,
      m.status,
      m.superseded_by,
      m.conflicts_with,
      encodeRedacted(m.evidence),
      encodeRedacted(m.files),
      m.created_at,
      m.updated_at,
    ).lastInsertRowid,
  );
}

/**
 * The first indexed word of a superseded unit, in place of its category: the duplicate, contradiction and
 * same-subject checks ask for the category word, so they no longer visit it; a search still finds it by its words.
 */
const SUPERSEDED_WORD = "superseded$";

/** Indexes a unit about to be set superseded under SUPERSEDED_WORD (once: a unit already superseded is left). */
function indexSuperseded(db: Db, id: number): void {
  const row = stmt(
    db,
    "SELECT status, category, text, json_extract(record, '$.request') AS request FROM memories WHERE id = ?",
  ).get(id) as { status: string; category: string; text: string; request: unknown } | undefined;
  if (!row || row.status === "superseded") return;
  // It loses its category's word, and the words of a request its text left out (indexed with it as it was written).
  if (typeof row.request === "string" && row.request.trim()) cappedByDb.delete(db);
  const capped = cappedByDb.get(db)?.terms;
  for (const t of [SUPERSEDED_WORD, ...identifierTokens(row.category)]) capped?.delete(t);
  indexMemory(db, id, supersededTokens(row.text));
}

const supersededTokens = (text: string) => [SUPERSEDED_WORD, ...identifierTokens(text)].join(" ");

/**
 * Indexes a unit's new wording under its category word, or under SUPERSEDED_WORD when it is superseded (a reworded
 * superseded unit stays out of the checks' walk). Runs inside the caller's write transaction.
 */
export function indexUnitText(db: Db, id: number, category: string, text: string): void {
  cappedByDb.delete(db);
  const row = stmt(db, "SELECT status FROM memories WHERE id = ?").get(id) as { status: string } | undefined;
  indexMemory(
    db,
    id,
    row?.status === "superseded" ? supersededTokens(text) : identifierTokens(`${category} ${text}`).join(" "),
  );
}

/** Meta key set by migration 0019 until the superseded units of a store written before it are indexed apart. */
const SUPERSEDED_INDEX_PENDING = "memories.superseded_index_pending";
/** Superseded units read per query while they are indexed apart (hand-set: bounds the memory the pass holds). */
const SUPERSEDED_INDEX_PAGE = 1000;

/**
 * Indexes every superseded unit under SUPERSEDED_WORD once, when migration 0019 asked for it (a store from before
 * it holds them under their category word, where the checks' bounded walk would count them): one transaction, the
 * request cleared with it, so an interrupted run is redone at the next open.
 */
export function finishSupersededIndex(db: Db): void {
  // A store migrated from another folder of migrations (a test's) may have no meta table.
  if (!stmt(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get()) return;
  if (getMeta(db, SUPERSEDED_INDEX_PENDING) === undefined) return;
  cappedByDb.delete(db);
  db.transaction(() => {
    if (getMeta(db, SUPERSEDED_INDEX_PENDING) === undefined) return;
    // A page of units at a time: a store may hold many superseded units.
    const page = stmt(db, "SELECT id, text FROM memories WHERE status = 'superseded' AND id > ? ORDER BY id LIMIT ?");
    for (let after = 0; ;) {
      const rows = page.all(after, SUPERSEDED_INDEX_PAGE) as { id: number; text: string }[];
      for (const r of rows) indexMemory(db, r.id, supersededTokens(r.text));
      if (rows.length < SUPERSEDED_INDEX_PAGE) break;
      after = rows.at(-1)!.id;
    }
    stmt(db, "DELETE FROM meta WHERE key = ?").run(SUPERSEDED_INDEX_PENDING);
  }).immediate();
}

/** Indexes a unit's text for search (pre-tokenized identifier-aware tokens). */
export function indexMemory(db: Db, id: number, tokens: string): void {
  stmt(db, "DELETE FROM memories_fts WHERE rowid = ?").run(id);
  stmt(db, "INSERT INTO memories_fts (rowid, body) VALUES (?, ?)").run(id, tokens);
}

export function updateMemory(
  db: Db,
  id: number,
  f: Partial<
    Pick<
      MemoryRow,
      | "status"
      | "superseded_by"
      | "conflicts_with"
      | "evidence"
      | "confidence"
      | "record"
      | "importance"
      | "tier"
      | "updated_at"
    >
  >,
): void {
  if (f.status === "superseded") indexSuperseded(db, id);
  const stored: Record<string, unknown> = { ...f };
  if (f.record !== undefined) stored.record = encodeRedacted(f.record);
  if (f.evidence !== undefined) stored.evidence = encodeRedacted(f.evidence);
  const cols = Object.keys(stored);
  if (cols.length === 0) return;
  stmt(db, `UPDATE memories SET ${cols.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`).run(
    ...cols.map((c) => stored[c] ?? null),
    id,
  );
}

export function listMemories(
  db: Db,
  projectId: number,
  opts: { category?: string; tier?: string; session?: string; includeInactive?: boolean; limit?: number } = {},
): MemoryRow[] {
  const where = ["project_id = ?"];
  const args: unknown[] = [projectId];
  const add = (clause: string, value: unknown) => {
    where.push(clause);
    args.push(value);
  };
  if (opts.category) add("category = ?", opts.category);
  if (opts.tier) add("tier = ?", opts.tier);
  if (opts.session) add("session_id = ?", opts.session);
  if (!opts.includeInactive) where.push("status = 'active'");
  return (
    stmt(db, `SELECT * FROM memories WHERE ${where.join(" AND ")} ORDER BY importance DESC, id DESC LIMIT ?`).all(
      ...args,
      opts.limit ?? 100,
    ) as StoredMemory[]
  ).map(decodeMemory);
}

export function memoryCounts(
  db: Db,
  projectId: number,
): { category: string; tier: string; status: string; n: number }[] {
  // Kept by the store's triggers as units are written, changed and deleted: a few rows, whatever the store's size.
  return stmt(
    db,
    "SELECT category, tier, status, n FROM memory_counts WHERE project_id = ? AND n > 0 ORDER BY category",
  ).all(projectId) as { category: string; tier: string; status: string; n: number }[];
}

/**
 * Keeps turns in the cold archive (redacted again here; the caller tokenizes the redacted text); a turn already
 * archived is left as it was.
 */
export function archiveTurns(
  db: Db,
  projectId: number,
  sessionId: string,
  turns: { id: string; role: string; text: string; tokens: string }[],
): number {
  const now = new Date().toISOString();
  const ins = stmt(
    db,
    "INSERT OR IGNORE INTO raw_turns (project_id, session_id, turn_id, role, text, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const fts = stmt(db, "INSERT INTO raw_turns_fts (rowid, body) VALUES (?, ?)");
  let n = 0;
  for (const t of turns) {
    const r = ins.run(projectId, sessionId, t.id, t.role, redact(t.text), now);
    if (r.changes > 0) {
      fts.run(Number(r.lastInsertRowid), t.tokens);
      n++;
    }
  }
  return n;
}

export interface RawTurnRow {
  id: number;
  session_id: string;
  turn_id: string;
  role: string;
  text: string;
  created_at: string;
}

/** One archived turn of a project, by its session and turn id. */
export function rawTurnOf(db: Db, projectId: number, session: string, turnId: string): RawTurnRow | undefined {
  return stmt(
    db,
    "SELECT id, session_id, turn_id, role, text, created_at FROM raw_turns WHERE project_id = ? AND session_id = ? AND turn_id = ?",
  ).get(projectId, session, turnId) as RawTurnRow | undefined;
}

/** BM25 over memory units (higher is better), restricted to a project. */
export function searchMemoryFts(
  db: Db,
  projectId: number,
  match: string,
  limit: number,
): { id: number; score: number }[] {
  if (!match) return [];
  return stmt(
    db,
    `SELECT f.rowid AS id, -bm25(memories_fts) AS score FROM memories_fts f JOIN memories m ON m.id = f.rowid
     WHERE memories_fts MATCH ? AND m.project_id = ? ORDER BY bm25(memories_fts) LIMIT ?`,
  ).all(match, projectId, limit) as { id: number; score: number }[];
}

/** BM25 over the raw turn archive of a project. */
export function searchRawFts(
  db: Db,
  projectId: number,
  match: string,
  limit: number,
): (RawTurnRow & { score: number })[] {
  if (!match) return [];
  return stmt(
    db,
    `SELECT r.id, r.session_id, r.turn_id, r.role, r.text, r.created_at, -bm25(raw_turns_fts) AS score
     FROM raw_turns_fts f JOIN raw_turns r ON r.id = f.rowid
     WHERE raw_turns_fts MATCH ? AND r.project_id = ? ORDER BY bm25(raw_turns_fts) LIMIT ?`,
  ).all(match, projectId, limit) as (RawTurnRow & { score: number })[];
}

export function getMemory(db: Db, id: number): MemoryRow | undefined {
  const r = stmt(db, "SELECT * FROM memories WHERE id = ?").get(id) as StoredMemory | undefined;
  return r && decodeMemory(r);
}

/** Ids of units matching a forget request, within a project. */
export function memoryIdsFor(
  db: Db,
  projectId: number,
  q: { id?: number; session?: string; file?: string; all?: boolean },
): number[] {
  if (q.all)
    return (stmt(db, "SELECT id FROM memories WHERE project_id = ?").all(projectId) as { id: number }[]).map(
      (r) => r.id,
    );
  if (q.id !== undefined)
    return (
      stmt(db, "SELECT id FROM memories WHERE project_id = ? AND id = ?").all(projectId, q.id) as { id: number }[]
    ).map((r) => r.id);
  if (q.session)
    return (
      stmt(db, "SELECT id FROM memories WHERE project_id = ? AND session_id = ?").all(projectId, q.session) as {
        id: number;
      }[]
    ).map((r) => r.id);
  if (q.file) {
    return (
      stmt(db, "SELECT m.id FROM memories m, json_each(m.files) f WHERE m.project_id = ? AND f.value = ?").all(
        projectId,
        q.file,
      ) as { id: number }[]
    ).map((r) => r.id);
  }
  return [];
}

/**
 * Deletes memory units with everything derived from them (FTS rows, graph nodes, vectors, edges, served cards and
 * outcomes) and, for a session or the whole project, the raw turns, summaries, sessions and the session's quotes
 * in other units' evidence. The FTS indexes are then rewritten (deleted entries of a contentless FTS5 table stay
 * in its data pages until a merge), freed pages are overwritten (secure_delete) and the WAL is truncated.
 * `first` runs at the start of the same transaction, while the units still exist: what it writes is kept only if
 * the delete is, and if it throws nothing is deleted.
 */
export function deleteMemories(
  db: Db,
  projectId: number,
  ids: readonly number[],
  scope: { session?: string; all?: boolean },
  first?: () => void,
): { memories: number; rawTurns: number; summaries: number } & PurgeResult {
  let rawTurns = 0;
  let summaries = 0;
  cappedByDb.delete(db);
  const tx = db.transaction(() => {
    first?.();
    const delFts = stmt(db, "DELETE FROM memories_fts WHERE rowid = ?");
    const nodeOf = stmt(db, "SELECT id FROM nodes WHERE key = ?");
    const delNodeFts = stmt(db, "DELETE FROM nodes_fts WHERE rowid = ?");
    edgesChanged(db);
    const delEdges = stmt(db, "DELETE FROM edges WHERE src = ? OR dst = ?");
    const vecItem = stmt(db, "SELECT id FROM vector_items WHERE owner_type = 'node' AND owner_id = ?");
    const delVecItem = stmt(db, "DELETE FROM vector_items WHERE id = ?");
    const hasVec = stmt(db, "SELECT 1 FROM sqlite_master WHERE name = 'vectors'").get() !== undefined;
    const delNode = stmt(db, "DELETE FROM nodes WHERE id = ?");
    const delServed = stmt(db, "DELETE FROM cards_served WHERE project_id = ? AND unit_key = ?");
    const delOutcomes = stmt(db, "DELETE FROM outcomes WHERE project_id = ? AND unit_key = ?");
    let nodesTouched = false;
    stmt(db, "UPDATE memories SET superseded_by = NULL WHERE superseded_by IN (SELECT value FROM json_each(?))").run(
      JSON.stringify(ids),
    );
    stmt(db, "UPDATE memories SET conflicts_with = NULL WHERE conflicts_with IN (SELECT value FROM json_each(?))").run(
      JSON.stringify(ids),
    );
    for (const id of ids) {
      delFts.run(id);
      const node = nodeOf.get(`memory:${id}`) as { id: number } | undefined;
      if (node) {
        delNodeFts.run(node.id);
        delEdges.run(node.id, node.id);
        const item = vecItem.get(node.id) as { id: number } | undefined;
        if (item) {
          if (hasVec) db.prepare("DELETE FROM vectors WHERE rowid = ?").run(BigInt(item.id));
          noteVectorWrite(db);
          delVecItem.run(item.id);
        }
        delNode.run(node.id);
        nodesTouched = true;
      }
      delServed.run(projectId, `memory:${id}`);
      delOutcomes.run(projectId, `memory:${id}`);
      stmt(db, "DELETE FROM memories WHERE id = ?").run(id);
    }
    if (scope.session || scope.all) {
      const raws = (
        scope.all
          ? stmt(db, "SELECT id FROM raw_turns WHERE project_id = ?").all(projectId)
          : stmt(db, "SELECT id FROM raw_turns WHERE project_id = ? AND session_id = ?").all(projectId, scope.session)
      ) as { id: number }[];
      const delRawFts = stmt(db, "DELETE FROM raw_turns_fts WHERE rowid = ?");
      const delRaw = stmt(db, "DELETE FROM raw_turns WHERE id = ?");
      for (const r of raws) {
        delRawFts.run(r.id);
        delRaw.run(r.id);
      }
      rawTurns = raws.length;
      // A queued distillation of a forgotten session would bring its turns back: it goes too.
      if (scope.all) stmt(db, "DELETE FROM distill_jobs WHERE project_id = ?").run(projectId);
      else stmt(db, "DELETE FROM distill_jobs WHERE project_id = ? AND session_id = ?").run(projectId, scope.session);
      const sessions = (
        scope.all
          ? stmt(db, "SELECT id FROM sessions WHERE project_id = ?").all(projectId)
          : stmt(db, "SELECT id FROM sessions WHERE project_id = ? AND id = ?").all(projectId, scope.session)
      ) as { id: string }[];
      for (const s of sessions) {
        summaries += stmt(db, "DELETE FROM summaries WHERE session_id = ?").run(s.id).changes;
        stmt(db, "DELETE FROM cards_served WHERE session_id = ?").run(s.id);
        stmt(db, "DELETE FROM outcomes WHERE session_id = ?").run(s.id);
        stmt(db, "DELETE FROM sessions WHERE id = ?").run(s.id);
      }
      if (scope.session) dropSessionEvidence(db, projectId, scope.session);
      if (scope.all) {
        stmt(db, "DELETE FROM cards_served WHERE project_id = ?").run(projectId);
        stmt(db, "DELETE FROM outcomes WHERE project_id = ?").run(projectId);
      }
    }
    // Contentless-delete FTS5 tables only mark deleted rows; a merge into one segment drops their terms for good.
    if (ids.length > 0) db.exec("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')");
    if (rawTurns > 0) db.exec("INSERT INTO raw_turns_fts (raw_turns_fts) VALUES ('optimize')");
    if (nodesTouched) db.exec("INSERT INTO nodes_fts (nodes_fts) VALUES ('optimize')");
    // The deleted text lives on in older pages until the log is copied back and emptied, which waits for other
    // connections' open reads. Still held after the wait: the purge stays recorded, finished at the next open or close.
    setMeta(db, PURGE_PENDING, "1");
  });
  tx.immediate();
  return { memories: ids.length, rawTurns, summaries, ...finishPurge(db) };
}

/**
 * How a purge ended. `purged` false with no `purgeProblem`: another connection's open read keeps the old text in the
 * file until it ends. `purgeProblem`: the rewrite itself failed (a full disk, a read-only file), said as SQLite says it.
 */
export interface PurgeResult {
  purged: boolean;
  purgeProblem?: string;
}

/** A lock held by another connection, which the next open or close outlives: anything else is a real problem. */
function isLockError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

const PURGE_PENDING = "forget.purge_pending";

/**
 * Empties the log after a rewrite that failed part-way: the pages it wrote before a full disk stopped it stay in the
 * log, holding the disk's last free space for as long as the store is open. Without waiting, and best effort: the
 * rewrite's own failure is what is said.
 */
function releaseLog(db: Db): void {
  try {
    db.pragma("busy_timeout = 0");
    checkpointWal(db, "TRUNCATE");
  } catch {
    // The log stays as it is; the next open or close empties it.
  }
}

/**
 * Finishes a purge: rewrites the file (VACUUM) and truncates the WAL once no other connection reads an older
 * snapshot. `wait: false` (at open and close) does not wait for such a read. `purged` when nothing is left to purge;
 * a failure other than another connection's lock is returned as `purgeProblem` (the purge stays pending either way).
 */
export function finishPurge(db: Db, opts: { wait?: boolean } = {}): PurgeResult {
  if (getMeta(db, PURGE_PENDING) === undefined) return { purged: true };
  const prev = db.pragma("busy_timeout", { simple: true }) as number;
  if (opts.wait === false) db.pragma("busy_timeout = 0");
  try {
    // Secure delete zeroes what a delete frees, but a page the b-tree rebuilt while balancing can keep old bytes in
    // its unused middle (seen in the full-text index's pages): rewriting the file is what leaves none. Every table
    // whose row ids are referred to names them (INTEGER PRIMARY KEY, or a column called rowid), so none move.
    // The rewrite goes through the log: while an older read keeps the log from being emptied, each retry would add
    // another copy of the whole store to it, so it waits until the log can be emptied.
    if (checkpointWal(db, "TRUNCATE").busy) return { purged: false };
    db.exec("VACUUM");
    if (checkpointWal(db, "TRUNCATE").busy) return { purged: false };
    stmt(db, "DELETE FROM meta WHERE key = ?").run(PURGE_PENDING);
    return { purged: !checkpointWal(db, "TRUNCATE").busy };
  } catch (err) {
    // Another connection's write lock: the next open or close tries again. Anything else is said as it is.
    if (isLockError(err)) return { purged: false };
    releaseLog(db);
    return { purged: false, purgeProblem: (err as Error).message };
  } finally {
    db.pragma(`busy_timeout = ${prev}`);
  }
}

const AnyEvidence = z.array(z.unknown());

/** Removes a forgotten session's quotes from the evidence of units that other sessions keep. */
function dropSessionEvidence(db: Db, projectId: number, session: string): void {
  const rows = stmt(
    db,
    `SELECT DISTINCT m.id AS id, m.evidence AS evidence FROM memories m, json_each(m.evidence) e
     WHERE m.project_id = ? AND json_extract(e.value, '$.session') = ?`,
  ).all(projectId, session) as { id: number; evidence: string }[];
  const upd = stmt(db, "UPDATE memories SET evidence = ? WHERE id = ?");
  for (const r of rows) {
    // Read leniently: whatever else an entry holds, every quote from the session goes.
    const evidence = decodeJson(AnyEvidence, r.evidence) ?? [];
    const fromSession = (e: unknown) => typeof e === "object" && e !== null && "session" in e && e.session === session;
    upd.run(JSON.stringify(evidence.filter((e) => !fromSession(e))), r.id);
  }
}

/** Units a unit superseded (its history). */
export function supersededBy(db: Db, id: number, limit = 5): { id: number; text: string }[] {
  return stmt(db, "SELECT id, text FROM memories WHERE superseded_by = ? ORDER BY id DESC LIMIT ?").all(id, limit) as {
    id: number;
    text: string;
  }[];
}

/** Memory unit ids nearest to a query vector (through their graph nodes' vectors), best first, one project. */
export function nearestMemoryIds(db: Db, projectId: number, query: Float32Array, k: number): number[] {
  const near = nearestVectors(db, query, Math.max(k * 4, 100), "node");
  const out: number[] = [];
  const keyOf = stmt(db, "SELECT key FROM nodes WHERE id = ? AND type = 'memory'");
  const inProject = stmt(db, "SELECT 1 FROM memories WHERE id = ? AND project_id = ?");
  for (const n of near) {
    const row = keyOf.get(n.ownerId) as { key: string } | undefined;
    if (!row) continue;
    const id = Number(row.key.slice("memory:".length));
    if (inProject.get(id, projectId)) out.push(id);
    if (out.length >= k) break;
  }
  return out;
}

/** Filters of a unit listing (the viewer's filter bar); an empty value is no filter. */
export interface MemoryFilter {
  category?: string | undefined;
  tier?: string | undefined;
  status?: string | undefined;
  /** Only units created at or after this ISO time. */
  since?: string | undefined;
}

/** Where a page of units starts: after the unit last shown (keyset), or, for a link to a page number, an offset. */
export type MemoryCursor = { before: number } | { after: number } | { offset: number };

/**
 * The WHERE clause of a unit listing. Its one indexed column is the rarest the filter names (a status other than
 * active, then the category, the tier, active); the others are unary-plus filters, so the walk newest first goes
 * down that index in id order, stopped at the page's size, whatever the planner's statistics.
 */
function memoryWhere(projectId: number, f: MemoryFilter): { sql: string; args: unknown[] } {
  const lead: [string, string | undefined][] = [
    ["status", f.status && f.status !== "active" ? f.status : undefined],
    ["category", f.category],
    ["tier", f.tier],
    ["status", f.status],
  ];
  const driver = lead.find(([, v]) => v)?.[0];
  const where = ["project_id = ?"];
  const args: unknown[] = [projectId];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined || value === "") return;
    where.push(`${column === driver ? "" : "+"}${column} = ?`);
    args.push(value);
  };
  add("category", f.category);
  add("tier", f.tier);
  add("status", f.status);
  if (f.since) {
    // Every unit created since has an id at least the lowest of them: the walk stops there, not at the oldest unit.
    where.push(
      "+created_at >= ?",
      "id >= (SELECT coalesce(min(id), 0) FROM memories INDEXED BY memories_created WHERE project_id = ? AND created_at >= ?)",
    );
    args.push(f.since, projectId, f.since);
  }
  return { sql: where.join(" AND "), args };
}

/** How many units match a filter: from the kept counts, or, for a time since, from that range of its index. */
function memoryTotal(db: Db, projectId: number, f: MemoryFilter): number {
  if (f.since) {
    const where = ["project_id = ?", "created_at >= ?"];
    const args: unknown[] = [projectId, f.since];
    for (const [column, value] of [
      ["category", f.category],
      ["tier", f.tier],
      ["status", f.status],
    ] as const) {
      if (!value) continue;
      where.push(`${column} = ?`);
      args.push(value);
    }
    return (
      stmt(db, `SELECT COUNT(*) AS n FROM memories INDEXED BY memories_created WHERE ${where.join(" AND ")}`).get(
        ...args,
      ) as { n: number }
    ).n;
  }
  return memoryCounts(db, projectId)
    .filter(
      (r) =>
        (!f.category || r.category === f.category) &&
        (!f.tier || r.tier === f.tier) &&
        (!f.status || r.status === f.status),
    )
    .reduce((n, r) => n + r.n, 0);
}

/**
 * One page of a project's units under `f`, newest first, and how many match in all; a damaged JSON column reads
 * as empty (the viewer shows what it can). A page starts after the unit last shown (`before`: older ones; `after`:
 * newer ones), so it costs the same however deep it is.
 */
export function browseMemories(
  db: Db,
  projectId: number,
  f: MemoryFilter,
  limit: number,
  cursor: MemoryCursor = { offset: 0 },
): { units: MemoryRow[]; total: number } {
  const w = memoryWhere(projectId, f);
  const total = memoryTotal(db, projectId, f);
  let rows: StoredMemory[];
  if ("after" in cursor) {
    rows = (
      stmt(db, `SELECT * FROM memories WHERE ${w.sql} AND id > ? ORDER BY id LIMIT ?`).all(
        ...w.args,
        cursor.after,
        limit,
      ) as StoredMemory[]
    ).reverse();
  } else if ("before" in cursor) {
    rows = stmt(db, `SELECT * FROM memories WHERE ${w.sql} AND id < ? ORDER BY id DESC LIMIT ?`).all(
      ...w.args,
      cursor.before,
      limit,
    ) as StoredMemory[];
  } else {
    rows = stmt(db, `SELECT * FROM memories WHERE ${w.sql} ORDER BY id DESC LIMIT ? OFFSET ?`).all(
      ...w.args,
      limit,
      cursor.offset,
    ) as StoredMemory[];
  }
  return { units: rows.map(decodeMemoryLeniently), total };
}

/** Units by id (in the order asked), within a project; a damaged JSON column reads as empty, as in a page. */
export function memoriesById(db: Db, projectId: number, ids: readonly number[]): MemoryRow[] {
  if (ids.length === 0) return [];
  const rows = stmt(db, "SELECT * FROM memories WHERE project_id = ? AND id IN (SELECT value FROM json_each(?))").all(
    projectId,
    JSON.stringify(ids),
  ) as StoredMemory[];
  const byId = new Map(rows.map((r) => [r.id, decodeMemoryLeniently(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Replaces a unit's wording in its row: text, merge key, record and evidence (all redacted). False when the
 * project has no such unit. The caller re-indexes it (`indexMemory`) in the same transaction.
 */
export function rewordMemory(
  db: Db,
  projectId: number,
  id: number,
  w: Pick<MemoryRow, "text" | "merge_key" | "record" | "evidence" | "updated_at">,
): boolean {
  return (
    stmt(
      db,
      "UPDATE memories SET text = ?, merge_key = ?, record = ?, evidence = ?, updated_at = ? WHERE id = ? AND project_id = ?",
    ).run(
      redact(w.text),
      redact(w.merge_key),
      encodeRedacted(w.record),
      encodeRedacted(w.evidence),
      w.updated_at,
      id,
      projectId,
    ).changes > 0
  );
}

/** Pins (always warm, highest importance, `pinned` in its record) or unpins a unit. */
export function setMemoryPinned(db: Db, projectId: number, id: number, pinned: boolean, now: string): boolean {
  const sql = pinned
    ? "UPDATE memories SET tier = 'warm', importance = 1, record = json_set(record, '$.pinned', json('true')), updated_at = ? WHERE id = ? AND project_id = ?"
    : "UPDATE memories SET record = json_remove(record, '$.pinned'), updated_at = ? WHERE id = ? AND project_id = ?";
  return stmt(db, sql).run(now, id, projectId).changes > 0;
}

/** Sets a unit's status from `from` to `to`; false when no such unit has that status. */
export function moveMemoryStatus(
  db: Db,
  projectId: number,
  id: number,
  from: string,
  to: string,
  now: string,
): boolean {
  return (
    stmt(db, "UPDATE memories SET status = ?, updated_at = ? WHERE id = ? AND project_id = ? AND status = ?").run(
      to,
      now,
      id,
      projectId,
      from,
    ).changes > 0
  );
}
