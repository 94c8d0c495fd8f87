// Cross-session memory: record a unit, search units (and the raw archive), recall what the work at hand
// needs under a budget, forget for real.

import { z } from "zod";

import { Sections } from "../conversation/schema.js";
import type { Embedder } from "../embeddings/provider.js";
import { AppError } from "../errors.js";
import { git } from "../git.js";
import type { Db } from "../storage/db.js";
import {
  deleteMemories,
  getMemory,
  listMemories,
  memoryIdsFor,
  type MemoryRow,
  nearestMemoryIds,
  type PurgeResult,
  rawTurnOf,
  searchMemoryFts,
  searchRawFts,
  supersededBy,
} from "../storage/memories.js";
import type { ProjectScope } from "../storage/scope.js";
import { latestSummary, summarizedSessions } from "../storage/summaries.js";
import { clipWords } from "../text/cut.js";
import { identifierTokens } from "../text/identifiers.js";
import { count } from "../text/plural.js";
import { redact } from "../text/redact.js";
import { queryTerms } from "../text/search-terms.js";
import { countTokens } from "../text/tokens.js";
import { canonicalCategory } from "../vocab.js";
import { isPaused } from "./admin.js";
import { writeUnit } from "./distill.js";
import { ForgetInput, RecallInput, RecordInput, SearchInput } from "./input.js";
import type { UnitDraft } from "./schema.js";
import { staleChecker } from "./stale.js";
import { bestWindow, sentenceWindow } from "./window.js";

export { ForgetInput, RecallInput, RecordInput, SearchInput };

/** The project the memory functions work on. */
export type MemoryDeps = ProjectScope;

/**
 * Stores one unit through the same cross-referencing as distillation (merge, supersession, conflicts). The id
 * is the row this call inserted, or the existing unit it merged into (`merged: true`). `onAdded` is called with the
 * id of a row this call inserted (not a merge): the composer shares it with the team (`recordMemory` in
 * session/memory.ts, which the fronts call).
 */
export function recordUnit(
  deps: MemoryDeps,
  raw: RecordInput,
  onAdded: (id: number) => void,
): { id: number | undefined; merged: boolean; outcome: string } {
  const input = RecordInput.parse(raw);
  if (isPaused(deps.db, deps.projectId))
    return { id: undefined, merged: false, outcome: "not stored: memory is paused for this project (memcards resume)" };
  const text = redact(input.text).trim();
  if (!text || text === "[private]")
    throw new AppError("BAD_INPUT", "nothing left to store after removing private and secret content");
  const category = canonicalCategory(input.category);
  const metric = /^(.+?):\s*(-?\d+(?:\.\d+)?)\s*(.*)$/.exec(text);
  const record: Record<string, unknown> =
    category === "performance" && metric
      ? {
          metric: metric[1]!.trim(),
          value: Number(metric[2]),
          unit: metric[3]!.trim(),
          context: input.scope ?? "",
          timestamp: new Date().toISOString(),
        }
      : { by: input.category === "rule" ? "rule" : "user", kind: input.category, scope: input.scope ?? "project" };
  const key =
    category === "performance" && metric ? metric[1]!.trim().toLowerCase() : text.toLowerCase().replace(/\s+/g, " ");
  const draft: UnitDraft = {
    category,
    text,
    record,
    key,
    confidence: input.confidence,
    evidence: [
      { ...(input.sessionId ? { session: input.sessionId } : {}), turn: "recorded", quote: text.slice(0, 500) },
    ],
    files: input.files ?? [],
  };
  const w = writeUnit(deps.db, deps.projectId, input.sessionId ?? "recorded", draft);
  if (w.action === "dropped") return { id: undefined, merged: false, outcome: "not stored: below the importance kept" };
  if (w.action === "added" && w.id !== undefined) onAdded(w.id);
  const outcome =
    w.action === "merged"
      ? w.pending
        ? "merged with a unit waiting for review"
        : "merged with an existing unit"
      : w.pending
        ? "stored; it waits for review (review mode is on) and is not used until a person approves it"
        : w.superseded !== undefined
          ? `stored; it supersedes the previous value (#${w.superseded})`
          : w.conflictsWith !== undefined
            ? `stored; it conflicts with an earlier commitment (#${w.conflictsWith}, both kept)`
            : "stored";
  return { id: w.id, merged: w.action === "merged", outcome };
}

export interface MemoryHit {
  id: number;
  category: string;
  tier: string;
  status: string;
  text: string;
  score: number;
  evidence: { session?: string; turn: string; quote: string }[];
  files: string[];
  history: { supersedes: { id: number; text: string }[]; conflicts_with?: { id: number; text: string } };
  /** The best window of the unit's evidence turn for the query, from the archive (absent when not archived). */
  window?: string;
  /** Cited files whose content changed since the unit was distilled: the unit may no longer hold. */
  stale?: string[];
}

/** A window of an archived turn that a memory search found (its keys are snake_case in --json and on the wire). */
export const RawHit = z.object({
  sessionId: z.string(),
  turnId: z.string(),
  role: z.string(),
  text: z.string(),
  score: z.number(),
});
export type RawHit = z.infer<typeof RawHit>;

function hitOf(db: Db, m: MemoryRow, score: number): MemoryHit {
  const supersedes = supersededBy(db, m.id);
  const conflict = m.conflicts_with ? getMemory(db, m.conflicts_with) : undefined;
  return {
    id: m.id,
    category: m.category,
    tier: m.tier,
    status: m.status,
    text: m.text,
    score: Math.round(score * 1000) / 1000,
    evidence: m.evidence,
    files: m.files,
    history: { supersedes, ...(conflict ? { conflicts_with: { id: conflict.id, text: conflict.text } } : {}) },
  };
}

/** Options only the local viewer sets; never reachable from a tool call. */
export interface SearchScope {
  /** Also units waiting for review (with `includeInactive`): the viewer shows them to the person reviewing. */
  includePending?: boolean;
}

/**
 * Search over memory units: BM25 over identifier-aware tokens, fused (reciprocal rank) with the nearest unit
 * vectors when `vector` (the query embedded by the project's embedder) is given; filtered; optionally the
 * raw archive too. Units waiting for review are left out unless `scope.includePending`.
 */
export function searchMemory(
  deps: MemoryDeps,
  raw: SearchInput,
  vector?: Float32Array,
  scope: SearchScope = {},
): { hits: MemoryHit[]; raw: RawHit[] } {
  const input = SearchInput.parse(raw);
  const { match, tokens } = queryTerms(input.query, 32);
  const category = input.category && canonicalCategory(input.category);
  const hits: MemoryHit[] = [];
  const fused = new Map<number, number>();
  searchMemoryFts(deps.db, deps.projectId, match, 200).forEach((h, i) => fused.set(h.id, 1 / (10 + i + 1)));
  if (vector) {
    nearestMemoryIds(deps.db, deps.projectId, vector, 50).forEach((id, i) =>
      fused.set(id, (fused.get(id) ?? 0) + 1 / (10 + i + 1)),
    );
  }
  const time = (v: string | undefined, name: string) => {
    if (!v) return undefined;
    const t = Date.parse(v);
    if (Number.isNaN(t))
      throw new AppError("BAD_INPUT", `${name} is not a date or time: ${v} (use ISO 8601, e.g. 2026-11-01)`);
    return t;
  };
  const since = time(input.since, "since");
  const until = time(input.until, "until");
  const cites = (m: MemoryRow) => m.files.some((f) => f.endsWith(input.file!) || input.file!.endsWith(f));
  const changedSince = staleChecker(deps.root);
  for (const [id, score] of [...fused.entries()].sort((x, y) => y[1] - x[1])) {
    const m = getMemory(deps.db, id);
    if (!m) continue;
    // A superseded unit is shown, ranked down (a later unit replaced it); one in conflict only when asked for.
    if (!input.includeInactive && m.status !== "active" && m.status !== "superseded") continue;
    if (m.status === "pending" && !scope.includePending) continue;
    if (category && m.category !== category) continue;
    if (input.sessionId && m.session_id !== input.sessionId) continue;
    if (input.tier !== "any" && m.tier !== input.tier) continue;
    if (input.file && !cites(m)) continue;
    const at = Date.parse(m.updated_at);
    if ((since !== undefined && at < since) || (until !== undefined && at > until)) continue;
    // A unit whose cited code changed since is shown, marked and ranked down.
    const stale = changedSince((m.record as { file_hashes?: unknown }).file_hashes);
    const down = (stale.length ? STALE_WEIGHT : 1) * (m.status === "superseded" ? SUPERSEDED_WEIGHT : 1);
    const hit = hitOf(deps.db, m, score * 100 * (m.tier === "warm" ? 1 : 0.8) * down);
    hits.push(stale.length ? { ...hit, stale } : hit);
    if (hits.length >= input.limit) break;
  }
  hits.sort((a, b) => b.score - a.score);
  // Each unit with the window of its evidence turn that best matches the query: the fact and where it was said.
  const shownTurns = new Set<string>();
  for (const [rank, h] of hits.entries()) {
    const e = h.evidence.find((x) => x.session && x.turn !== "recorded");
    const turn = e?.session ? rawTurnOf(deps.db, deps.projectId, e.session, e.turn) : undefined;
    if (!turn) continue;
    shownTurns.add(`${turn.session_id}:${turn.turn_id}`);
    if (rank >= WINDOWED_HITS) continue;
    // Shown only when it holds query terms the unit's own text lacks: otherwise it repeats the fact.
    const w = bestWindow(turn.text, tokens, WINDOW_CHARS);
    const own = new Set(identifierTokens(h.text));
    if (w && identifierTokens(w).some((x) => tokens.includes(x) && !own.has(x))) h.window = w;
  }
  const rawHits = input.includeRaw
    ? searchRawFts(deps.db, deps.projectId, match, input.limit + shownTurns.size)
        .filter((r) => !shownTurns.has(`${r.session_id}:${r.turn_id}`))
        .slice(0, input.limit)
        .map((r) => ({
          sessionId: r.session_id,
          turnId: r.turn_id,
          role: r.role,
          text: bestWindow(r.text, tokens, RAW_WINDOW_CHARS),
          score: Math.round(r.score * 1000) / 1000,
        }))
    : [];
  // Without the archive asked for, its best windows still fill in what the units miss: a short window, whole
  // sentences around the query's terms, for each of the best archive turns that holds terms no unit shown holds.
  const fills = input.includeRaw ? [] : fillWindows(deps, match, tokens, hits, shownTurns, input.limit);
  const shown = fills.length ? hits.slice(0, Math.max(1, input.limit - fills.length)) : hits;
  const extra = [...rawHits, ...fills];
  return input.budgetTokens === undefined
    ? { hits: shown, raw: extra }
    : withinBudget(shown, extra, input.budgetTokens);
}

/** At most this many archive windows fill in after the units; characters of each. */
const FILL_WINDOWS = 3;
const FILL_WINDOW_CHARS = 360;
/** The share of a window's words already in the units shown above which it repeats them. */
const REPEAT_SHARE = 0.7;

function fillWindows(
  deps: MemoryDeps,
  match: string,
  terms: readonly string[],
  hits: readonly MemoryHit[],
  shownTurns: ReadonlySet<string>,
  limit: number,
): RawHit[] {
  const want = new Set(terms);
  const covered = new Set<string>();
  const cover = (text: string) => {
    for (const t of identifierTokens(text)) if (want.has(t)) covered.add(t);
  };
  const shownWords = new Set<string>();
  for (const h of hits) {
    const said = h.window ? `${h.text}\n${h.window}` : h.text;
    cover(said);
    for (const t of identifierTokens(said)) shownWords.add(t);
  }
  const out: RawHit[] = [];
  const seen = new Set<string>();
  for (const r of searchRawFts(deps.db, deps.projectId, match, limit + shownTurns.size)) {
    if (out.length >= FILL_WINDOWS) break;
    if (shownTurns.has(`${r.session_id}:${r.turn_id}`)) continue;
    const text = sentenceWindow(r.text, terms, FILL_WINDOW_CHARS);
    const key = text.replace(/\s+/g, " ").toLowerCase();
    if (!text || seen.has(key)) continue;
    // A window that only says again what a unit shown says (most of its words are in it) adds nothing.
    const own = identifierTokens(text);
    const adds = own.some((t) => want.has(t) && !covered.has(t));
    if (!adds && shownWords.size && own.filter((t) => shownWords.has(t)).length >= REPEAT_SHARE * own.length) continue;
    seen.add(key);
    cover(text);
    out.push({
      sessionId: r.session_id,
      turnId: r.turn_id,
      role: r.role,
      text,
      score: Math.round(r.score * 1000) / 1000,
    });
  }
  return out;
}

/** How much a stale unit's score counts against a current one's. */
const STALE_WEIGHT = 0.5;
/** How much a superseded unit's score counts against a current one's. */
const SUPERSEDED_WEIGHT = 0.3;

/** The top hits shown with their evidence window; characters of that window and of a raw turn's window. */
const WINDOWED_HITS = 3;
const WINDOW_CHARS = 300;
const RAW_WINDOW_CHARS = 600;

/**
 * Hits in rank order, units first, until the budget is spent: a unit whose window does not fit is kept without
 * it, and what does not fit at all is left out (never cut in the middle).
 */
export function withinBudget(hits: MemoryHit[], raw: RawHit[], budget: number): { hits: MemoryHit[]; raw: RawHit[] } {
  let left = budget;
  const outHits: MemoryHit[] = [];
  for (const h of hits) {
    const base = countTokens(h.text) + 12;
    if (base > left) continue;
    const w = h.window ? countTokens(h.window) : 0;
    if (h.window && base + w <= left) {
      outHits.push(h);
      left -= base + w;
    } else {
      const { window: _dropped, ...rest } = h;
      outHits.push(rest);
      left -= base;
    }
  }
  const outRaw: RawHit[] = [];
  for (const r of raw) {
    const c = countTokens(r.text) + 12;
    if (c > left) continue;
    outRaw.push(r);
    left -= c;
  }
  return { hits: outHits, raw: outRaw };
}

/**
 * What search_memory and `memcards search` run: hybrid (the query embedded by the project's embedder and
 * fused with BM25) when the project has vectors, lexical otherwise. Unit vectors are computed with the graph's.
 */
export async function searchMemoryHybrid(
  deps: MemoryDeps,
  raw: SearchInput,
  embedding: { embedder: Embedder; vectorsEnabled: boolean },
  scope: SearchScope = {},
): Promise<{ hits: MemoryHit[]; raw: RawHit[] }> {
  const input = SearchInput.parse(raw);
  let vector: Float32Array | undefined;
  if (embedding.vectorsEnabled) {
    // An embedder that fails (a model file gone, a broken runtime) leaves the lexical search, not no search.
    vector = await embedding.embedder
      .embed([input.query.slice(0, 4000)])
      .then((v) => v[0])
      .catch(() => undefined);
  }
  return searchMemory(deps, input, vector, scope);
}

/**
 * What the work at hand most likely needs, under a budget: the user's standing constraints, recent failures
 * and their fixes, latest metrics, units about the files changed in the work tree and the branch, and the
 * last session's Next Steps — selected with queries that anticipate the work, not just the newest entries.
 */
export function recall(
  deps: MemoryDeps,
  raw: z.input<typeof RecallInput> = {},
): { markdown: string; tokens: number; units: number[] } {
  const { budgetTokens: budget } = RecallInput.parse(raw);
  // One git process for both: the branch from the status header, the changed paths from its lines.
  const status = (git(deps.root, ["status", "--porcelain", "--branch"], { timeout: 2000, trim: false }) ?? "").split(
    "\n",
  );
  const header = status[0]?.startsWith("## ") ? status.shift()!.slice(3) : "";
  const branch = header.startsWith("No commits yet") ? "" : (header.split(/\.\.\.|\s/)[0] ?? "");
  const changed = status
    .map((l) => l.slice(3).trim())
    .filter(Boolean)
    .slice(0, 30);
  const sections: { title: string; lines: { id?: number; text: string }[] }[] = [];
  const used = new Set<number>();
  // Units are whole sentences: shown whole (a unit longer than this is an old, unclipped one).
  const changedSince = staleChecker(deps.root);
  const line = (m: MemoryRow) => {
    const stale = changedSince((m.record as { file_hashes?: unknown }).file_hashes);
    const mark = stale.length ? ` (stale: ${stale.join(", ")} changed since)` : "";
    return { id: m.id, text: `- ${clipWords(m.text, 1000)}${mark} (#${m.id})` };
  };
  // The n units of a category in force (most important, then newest first) not already shown: read are only those
  // n and as many more as units already shown, whatever the store's size.
  const pick = (category: string, n: number, tier?: string) =>
    listMemories(deps.db, deps.projectId, { category, ...(tier ? { tier } : {}), limit: n + used.size })
      .filter((m) => !used.has(m.id))
      .slice(0, n);
  // The last session's open work first: it is where the next session starts.
  const last = summarizedSessions(deps.db, deps.projectId, 1)[0];
  const lastRow = last && latestSummary(deps.db, last.id);
  if (last && lastRow) {
    const lastSections = Sections.parse(lastRow.sections);
    const next = lastSections.next.map((f) => ({ text: `- ${f.text}` }));
    const state = lastSections.state.map((f) => ({ text: clipWords(f.text, 400) }));
    if (next.length)
      sections.push({ title: `Next steps left by the last session (${last.id})`, lines: next.slice(0, 8) });
    if (state.length) sections.push({ title: "Where it stood", lines: state.slice(0, 1) });
  }
  const constraints = pick("commitment", 12, "warm");
  constraints.forEach((m) => used.add(m.id));
  if (constraints.length) sections.push({ title: "User constraints and rules", lines: constraints.map(line) });
  if (changed.length || (branch && branch !== "HEAD")) {
    const q = [...changed, branch].join(" ");
    const related = searchMemory(deps, { query: q, limit: 8, tier: "any" }).hits.filter((h) => !used.has(h.id));
    related.forEach((h) => used.add(h.id));
    if (related.length) {
      sections.push({
        title: `About the work in progress (${branch || "no branch"}${changed.length ? `, ${count(changed.length, "changed file")}` : ""})`,
        lines: related.map((h) => ({
          id: h.id,
          text: `- [${h.category}] ${clipWords(h.text, 1000)}${h.stale ? ` (stale: ${h.stale.join(", ")} changed since)` : ""} (#${h.id})`,
        })),
      });
    }
  }
  // What was changed last, for which request, in which commit: where the next session's work picks up.
  const changes = pick("change", 10);
  changes.forEach((m) => used.add(m.id));
  if (changes.length) sections.push({ title: "Recent changes", lines: changes.map(line) });
  const failures = pick("failure", 6, "warm");
  failures.forEach((m) => used.add(m.id));
  if (failures.length) {
    sections.push({
      title: "Recent failures and fixes",
      lines: failures.map((m) => {
        const r = m.record as { remediation?: string };
        return {
          id: m.id,
          text: `- ${clipWords(m.text, 240)}${r.remediation ? ` → ${r.remediation}` : ""} (#${m.id})`,
        };
      }),
    });
  }
  const metrics = pick("performance", 6);
  if (metrics.length) sections.push({ title: "Latest measurements", lines: metrics.map(line) });
  const prefs = pick("preference", 5, "warm");
  if (prefs.length) sections.push({ title: "Preferences", lines: prefs.map(line) });
  // Fill under the budget, section by section, most important first.
  const out: string[] = [];
  const units: number[] = [];
  let tokens = 0;
  for (const s of sections) {
    const head = `## ${s.title}`;
    const ht = countTokens(head) + 2;
    if (tokens + ht > budget) break;
    const body: string[] = [];
    let t = ht;
    for (const l of s.lines) {
      const c = countTokens(l.text) + 1;
      if (tokens + t + c > budget) break;
      body.push(l.text);
      if (l.id !== undefined) units.push(l.id);
      t += c;
    }
    if (body.length === 0) continue;
    out.push(`${head}\n${body.join("\n")}`);
    tokens += t;
  }
  const markdown = out.length
    ? out.join("\n\n")
    : "_No memory for this project yet: it builds up as conversations are compressed._";
  return { markdown, tokens: countTokens(markdown), units };
}

/** What forget says when another connection's read kept the old text in the file. */
export const NOT_PURGED =
  "Another connection holds an open read of the store, so the deleted text is still in its file (the write-ahead log) until that read ends; memcards empties the log when it next opens or closes the store.";

/** What forget adds when the deleted text may still be in the store's file: "" when it is gone. */
export function purgeNote(r: PurgeResult): string {
  if (r.purged) return "";
  if (r.purgeProblem === undefined) return NOT_PURGED;
  return `The units are deleted, but the store's file could not be rewritten (${r.purgeProblem}), so the deleted text may remain in its unused pages; memcards tries again when it next opens or closes the store.`;
}

/**
 * Deletes for real: every table (served cards and outcomes too), the FTS and vector indexes rewritten, freed pages
 * overwritten, WAL truncated. `purged` is false when another connection's open read kept the WAL from being emptied:
 * the old text stays in the file until that read ends (the purge is finished at the next open or close).
 * `beforeDelete` is called with the ids of the units about to be deleted, while they still exist and in the delete's
 * transaction (what it writes stands or falls with the delete): the composer queues their removal from the team store
 * (`forget` in session/memory.ts, which the fronts call).
 */
export function forgetUnits(
  deps: MemoryDeps,
  raw: ForgetInput,
  beforeDelete: (ids: readonly number[]) => void,
): { memories: number; rawTurns: number; summaries: number } & PurgeResult {
  const input = ForgetInput.parse(raw);
  const chosen = [input.id !== undefined, Boolean(input.sessionId), Boolean(input.file), input.all].filter(
    Boolean,
  ).length;
  if (chosen !== 1)
    throw new AppError("BAD_INPUT", "say what to forget: exactly one of id, session_id, file or all: true");
  const ids = memoryIdsFor(deps.db, deps.projectId, {
    ...(input.id !== undefined ? { id: input.id } : {}),
    ...(input.sessionId ? { session: input.sessionId } : {}),
    ...(input.file ? { file: input.file } : {}),
    all: input.all,
  });
  if (input.id !== undefined && ids.length === 0)
    throw new AppError("NOT_FOUND", `no memory unit #${input.id} in this project`);
  return deleteMemories(
    deps.db,
    deps.projectId,
    ids,
    { ...(input.sessionId ? { session: input.sessionId } : {}), all: input.all },
    () => beforeDelete(ids),
  );
}
