// Candidates for a task's cards: retrieved files and their symbols, the tests covering them, the rules
// governing them, the session's own constraints and failures, earlier sessions' memory units and the team's; each
// with its run-time signals. One function per kind of candidate; `gatherCandidates` runs them in a fixed order (the
// order is part of the output: packing breaks ties by it).
import { statSync } from "node:fs";
import { join } from "node:path";

import type { Sections } from "../conversation/schema.js";
import { detectLanguage, isCodeLanguage, type LanguageId } from "../repo/languages.js";
import { extractAnchors } from "../retrieval/query.js";
import type { RankedFile, RankedSymbol, Ranker } from "../retrieval/rank.js";
import { confidenceOf, type EvidenceFeatures } from "../scoring/calibration.js";
import type { Candidate, UnitKind } from "../scoring/schema.js";
import { outcomeCounts } from "../storage/cards.js";
import type { Db } from "../storage/db.js";
import { edgesTo, fileNeighbors } from "../storage/graph/edges.js";
import { fileStamp } from "../storage/graph/files.js";
import { fileNodeAt, getNodeByKey, getNodes, type NodeRow } from "../storage/graph/nodes.js";
import { listMemories } from "../storage/memories.js";
import { cachedUnits } from "../storage/team/outbox.js";
import { identifierTokens } from "../text/identifiers.js";
import { countTokens } from "../text/tokens.js";
import { evidenceFeatures } from "./evidence.js";
import { type SessionPath, sessionPaths } from "./session-paths.js";

export { failureIdentifiers } from "./session-paths.js";

export interface CandidateContext {
  db: Db;
  projectId: number;
  root: string;
  ranker: Ranker;
  /** The session's stored summary, when the call names a session. */
  session?: Sections;
}

// Every constant below was set by hand when the cards were built (no evaluation fits them); each says why.

/** Files read from the ranking: about what a 1,200-token pack can hold as file cards, with room to choose. */
const FILES = 12;
/** Symbols a file card names: enough to say what the file defines for the task, short enough to stay a line. */
const SYMBOLS_PER_FILE = 3;
/** Symbol cards only for the top files: below them a file card (which names its symbols) says enough. */
const SYMBOL_CARD_FILES = 3;
const SYMBOL_CARDS_PER_FILE = 2;
/** How deep the ranking is read to place files the caller passed among the others. */
const PASSED_DEPTH = 100;
/**
 * The cost a file or test card is priced at, at most: the card shows the file's summary lines, not its body, so a
 * large file is not priced out of the pack by its size.
 */
const FILE_CARD_TOKENS = 400;
/** The best files: whose covering tests, governing rules and citations by memory units are candidates. */
const TOP_FILES = 5;
/** The best files whose covering tests are candidates, and on which a governing rule is in scope (distance 0). */
const NEAR_FILES = 3;
/** Files a rule card names as governed. */
const GOVERNED_SHOWN = 3;
/** Graph distance of a session or memory unit that cites none of the best files: related by its words only. */
const UNCITED = 2;
/**
 * The share of a memory or team unit's distinctive terms the task must use for the unit to be a candidate when it
 * cites none of the best files: more than a third (3 of a long unit's first 8 terms, 2 of a short one's 3–5).
 */
const MEMORY_OVERLAP = 0.34;
/** Warm memory units of a category read (the most important first). */
const MEMORIES_READ = 200;
/** Team units read (one list of both categories; the memory units above are read per category). */
const TEAM_UNITS_READ = 400;
/**
 * How far retrieval is trusted for code in a language the session does not work in (see `foreignTo`): the
 * session's own files are evidence of where the task lives, so a lexical match elsewhere is half as likely.
 */
const FOREIGN_TRUST = 0.5;
/** Languages that share code and tooling count as one (a header and its source, JavaScript and TypeScript). */
const FAMILY: Partial<Record<LanguageId, string>> = {
  c: "c",
  cpp: "c",
  objc: "c",
  typescript: "js",
  tsx: "js",
  javascript: "js",
};
const family = (path: string) => {
  const l = detectLanguage(path);
  return isCodeLanguage(l) ? (FAMILY[l!] ?? l!) : undefined;
};

/**
 * Whether a path holds code in a language that neither the session's files nor the paths the task names use.
 * Always false without session files in a code language: the task alone says nothing of its language.
 */
export function foreignTo(sessionPaths: readonly string[], taskPaths: readonly string[]): (path: string) => boolean {
  const used = new Set(sessionPaths.flatMap((p) => family(p) ?? []));
  if (used.size === 0) return () => false;
  for (const p of taskPaths) {
    const f = family(p);
    if (f) used.add(f);
  }
  return (path) => {
    const f = family(path);
    return f !== undefined && !used.has(f);
  };
}

/** The shortest term compared: one- and two-letter pieces (`ex`, `i`) occur in any text and name nothing. */
const MIN_TERM = 3;
/** Characters of a failure's signature in its card key: enough to tell failures apart, short enough for a key. */
const FAILURE_KEY_CHARS = 80;

function termSet(text: string): Set<string> {
  return new Set(identifierTokens(text).filter((t) => t.length >= MIN_TERM));
}

/** A unit's distinctive terms are compared up to this many: a long unit needs no more matches than a short one. */
const OVERLAP_TERMS = 8;

/** Share of the unit's distinctive terms that the task also uses (0–1). */
export function overlap(task: ReadonlySet<string>, text: string): number {
  const unit = termSet(text);
  if (unit.size === 0) return 0;
  let hit = 0;
  for (const t of unit) if (task.has(t)) hit++;
  return Math.min(1, hit / Math.min(unit.size, OVERLAP_TERMS));
}

/** The indexed file changed on disk since it was indexed (the watcher has not caught up). */
function staleOnDisk(db: Db, root: string, path: string): boolean {
  const row = fileStamp(db, path);
  if (!row) return false;
  try {
    const st = statSync(join(root, path));
    return st.size !== row.size || Math.abs(st.mtimeMs - row.mtime_ms) > 1;
  } catch {
    return true; // deleted since indexing
  }
}

const base = (over: Partial<Candidate["signals"]> = {}): Candidate["signals"] => ({
  channels: {},
  anchor_hit: false,
  graph_distance: 0,
  overlap: 0,
  stale: false,
  conflict: false,
  off_scope: false,
  ...over,
});

/** A file placed for the cards: its ranking entry and its 1-based rank, undefined when the ranking missed it. */
interface Placed {
  r: RankedFile;
  rank: number | undefined;
}

/**
 * The files the cards consider: the ranking's first FILES, then the files the caller passed and the files the
 * session touched, each at its own rank when the ranking has it (never pulled to the top).
 */
export function placeFiles(
  full: readonly RankedFile[],
  files: readonly string[],
  touched: ReadonlyMap<string, SessionPath>,
): Placed[] {
  const entries: Placed[] = full.slice(0, FILES).map((r, i) => ({ r, rank: i + 1 }));
  const place = (path: string) => {
    if (entries.some((e) => e.r.path === path)) return;
    const at = full.findIndex((r) => r.path === path);
    entries.push(at >= 0 ? { r: full[at]!, rank: at + 1 } : { r: { path, score: 0, channels: {} }, rank: undefined });
  };
  for (const f of files) place(f);
  for (const [p, t] of touched) if (t.type === "file") place(p);
  return entries;
}

/** What every candidate is judged against: the task's terms and names, and how far retrieval is trusted. */
interface Scene {
  db: Db;
  root: string;
  taskTerms: Set<string>;
  /** Paths, stack frames and tests the task names. */
  namedPaths: string[];
  /** The files the caller passed. */
  wanted: Set<string>;
  foreign: (path: string) => boolean;
  confidence: number;
  touched: ReadonlyMap<string, SessionPath>;
}

/** A placed file with its file node, the symbols the task concerns in it, and the signals its cards share. */
interface FileLead {
  placed: Placed;
  node: NodeRow;
  hits: (SymbolHit & { s: NodeRow })[];
  session: SessionPath | undefined;
  signals: Partial<Candidate["signals"]>;
}

/** A placed file's lead, or undefined when the index has no file node for it. */
function fileLead(sc: Scene, placed: Placed, bestScore: number, symbolHits: Map<string, SymbolHit[]>) {
  const { r, rank } = placed;
  const node = fileNodeAt(sc.db, r.path);
  if (!node) return undefined;
  // The file's best symbols for the task, read by key until a card's worth are found.
  const hits: FileLead["hits"] = [];
  for (const h of symbolHits.get(r.path) ?? []) {
    if (hits.length >= SYMBOLS_PER_FILE) break;
    const s = getNodeByKey(sc.db, h.key);
    if (s?.type === "symbol" && s.name && s.path === r.path) hits.push({ ...h, s });
  }
  const session = sc.touched.get(r.path);
  // A file the session touched is as strong a lead as the best retrieval hit, whatever the task's wording.
  const relative = session ? 1 : r.score > 0 && bestScore > 0 ? Math.min(1, r.score / bestScore) : undefined;
  const trust = session ? 1 : sc.foreign(r.path) ? FOREIGN_TRUST * sc.confidence : sc.confidence;
  const signals: Partial<Candidate["signals"]> = {
    fused_rank: r.score > 0 ? rank : undefined,
    ...(relative !== undefined ? { relative_score: relative } : {}),
    evidence: trust,
    ...(session ? { session_hit: true, edited: session.edited } : {}),
    channels: r.channels,
    stale: staleOnDisk(sc.db, sc.root, r.path),
  };
  return { placed, node, hits, session, signals } satisfies FileLead;
}

/** The file card of a lead: what the file defines for the task. */
function fileCandidate(sc: Scene, f: FileLead): Candidate {
  const { r } = f.placed;
  const anchorHit =
    sc.wanted.has(r.path) ||
    r.channels.anchors !== undefined ||
    sc.namedPaths.some((p) => r.path.endsWith(p.replace(/^\.?\//, "")));
  return {
    key: f.node.key,
    kind: "file",
    path: r.path,
    text: f.hits.map((h) => h.s.summary ?? h.s.name).join("\n"),
    raw_tokens: Math.min(f.node.tokens, FILE_CARD_TOKENS),
    signals: base({
      ...f.signals,
      anchor_hit: anchorHit,
      overlap: overlap(sc.taskTerms, `${r.path} ${f.hits.map((h) => h.s.name).join(" ")}`),
    }),
    about: {
      ...(f.hits.length
        ? { defines: f.hits.map((h) => `${h.s.name}${h.s.start_line ? ` (L${h.s.start_line})` : ""}`).join(", ") }
        : {}),
      ...(f.session ? { session: f.session.why } : {}),
    },
  };
}

/** The symbol cards of a lead: its best symbols, for the top files and the files the session touched. */
function symbolCandidates(f: FileLead): Candidate[] {
  const { rank, r } = f.placed;
  if (!((rank !== undefined && rank <= SYMBOL_CARD_FILES) || f.session)) return [];
  return f.hits.slice(0, SYMBOL_CARDS_PER_FILE).map((h) => ({
    key: h.s.key,
    kind: "symbol",
    path: r.path,
    name: h.s.name!,
    ...(h.s.start_line && h.s.end_line ? { lines: [h.s.start_line, h.s.end_line] as [number, number] } : {}),
    text: (h.s.summary ?? "").split("\n")[0] ?? "",
    raw_tokens: h.s.tokens,
    signals: base({
      ...f.signals,
      ...(f.signals.relative_score !== undefined ? { relative_score: f.signals.relative_score * h.share } : {}),
      anchor_hit: h.named,
      overlap: h.ov,
    }),
    about: { kind: h.s.kind ?? "symbol" },
  }));
}

/** Tests the session's failures cite (or it touched): the next step is to make them pass. */
function sessionTestCandidates(sc: Scene, seen: Set<number>): Candidate[] {
  const out: Candidate[] = [];
  for (const [p, t] of sc.touched) {
    if (t.type !== "test") continue;
    const [node] = getNodes(sc.db, [t.id]);
    if (!node?.path) continue;
    seen.add(t.id);
    const covers = fileNeighbors(sc.db, t.id).find((n) => n.type === "test_covers" && n.dir === "out");
    const coveredPath = covers ? getNodes(sc.db, [covers.id])[0]?.path : undefined;
    out.push({
      key: node.key,
      kind: "test",
      path: p,
      text: p,
      raw_tokens: Math.min(node.tokens, FILE_CARD_TOKENS),
      signals: base({
        graph_distance: 0,
        overlap: overlap(sc.taskTerms, p),
        stale: staleOnDisk(sc.db, sc.root, p),
        evidence: 1,
        session_hit: true,
        edited: t.edited,
        anchor_hit: true, // named by the session: its failure cites it, or the session changed it
      }),
      about: { covers: coveredPath ?? p, session: t.why },
    });
  }
  return out;
}

/** Tests covering the nearest of the best files, not already listed. */
function coveringTestCandidates(sc: Scene, top: readonly NodeRow[], seen: Set<number>): Candidate[] {
  const out: Candidate[] = [];
  for (const f of top.slice(0, NEAR_FILES)) {
    for (const n of fileNeighbors(sc.db, f.id)) {
      if (n.type !== "test_covers" || n.dir !== "in" || seen.has(n.id)) continue;
      seen.add(n.id);
      const [t] = getNodes(sc.db, [n.id]);
      if (!t?.path) continue;
      out.push({
        key: t.key,
        kind: "test",
        path: t.path,
        text: t.path,
        raw_tokens: Math.min(t.tokens, FILE_CARD_TOKENS),
        signals: base({
          graph_distance: f === top[0] ? 0 : 1, // a test of the top-ranked file is as close to the edit as the file
          evidence: sc.foreign(t.path) ? FOREIGN_TRUST * sc.confidence : sc.confidence,
          overlap: overlap(sc.taskTerms, t.path),
          stale: staleOnDisk(sc.db, sc.root, t.path),
        }),
        about: { covers: f.path ?? "" },
      });
    }
  }
  return out;
}

/** Rules governing the best files; in scope when they govern one of the nearest. */
function ruleCandidates(sc: Scene, top: readonly NodeRow[]): Candidate[] {
  const governs = new Map<number, string[]>();
  for (const e of edgesTo(
    sc.db,
    top.map((t) => t.id),
    "precondition",
  )) {
    const f = top.find((t) => t.id === e.dst);
    if (f?.path) governs.set(e.src, [...(governs.get(e.src) ?? []), f.path]);
  }
  return getNodes(sc.db, [...governs.keys()]).map((rule) => {
    const paths = governs.get(rule.id) ?? [];
    const onTop = top.slice(0, NEAR_FILES).some((t) => paths.includes(t.path ?? ""));
    return {
      key: rule.key,
      kind: "rule",
      path: rule.path ?? rule.key,
      text: rule.summary ?? "",
      raw_tokens: rule.tokens,
      signals: base({
        graph_distance: onTop ? 0 : 1,
        overlap: overlap(sc.taskTerms, rule.summary ?? ""),
        off_scope: !onTop,
        evidence: sc.confidence,
      }),
      about: { governs: paths.slice(0, GOVERNED_SHOWN).join(", ") },
    };
  });
}

/** Whether a text cites one of the paths, whole or by file name. */
const citesAny = (paths: readonly string[]) => (text: string) =>
  paths.some((p) => text.includes(p) || text.includes(p.slice(p.lastIndexOf("/") + 1)));

/** The session's user constraints. */
function constraintCandidates(sc: Scene, session: Sections, cites: (text: string) => boolean): Candidate[] {
  return session.constraints.map((c) => ({
    key: `constraint:${c.turn}`,
    kind: "constraint",
    text: c.text,
    raw_tokens: countTokens(c.text),
    signals: base({ graph_distance: cites(c.text) ? 0 : UNCITED, overlap: overlap(sc.taskTerms, c.text) }),
    about: { turn: c.turn },
  }));
}

/** The session's failures, each with the indexed definitions it names. */
function failureCandidates(
  sc: Scene,
  session: Sections,
  named: ReadonlyMap<number, { name: string; path: string }[]>,
  cites: (text: string) => boolean,
): Candidate[] {
  return session.failures.map((f, i) => {
    // Names the failure gives of indexed definitions (a test function): the card says where they live.
    const names = named.get(i) ?? [];
    const where = names.map((n) => `${n.name} in ${n.path}`).join(", ");
    return {
      key: `failure:${f.signature.slice(0, FAILURE_KEY_CHARS)}`,
      kind: "failure",
      text: f.text,
      raw_tokens: countTokens(`${f.text} ${where}`),
      signals: base({
        graph_distance: names.length > 0 || cites(`${f.text} ${f.remediation ?? ""}`) ? 0 : UNCITED,
        overlap: overlap(sc.taskTerms, f.text),
      }),
      about: {
        turn: f.turn,
        ...(where ? { cites: where } : {}),
        ...(f.remediation ? { remediation: f.remediation } : {}),
      },
    };
  });
}

/**
 * Warm memory units of the project (earlier sessions): commitments and failures that cite the best files or share
 * enough of the task's terms, unless a candidate already says the same text.
 */
function memoryCandidates(
  sc: Scene & { projectId: number },
  kinds: ReadonlySet<UnitKind>,
  topPaths: readonly string[],
  seenText: ReadonlySet<string>,
): Candidate[] {
  const memories = [
    ...(kinds.has("constraint")
      ? listMemories(sc.db, sc.projectId, { category: "commitment", tier: "warm", limit: MEMORIES_READ })
      : []),
    ...(kinds.has("failure")
      ? listMemories(sc.db, sc.projectId, { category: "failure", tier: "warm", limit: MEMORIES_READ })
      : []),
  ];
  const out: Candidate[] = [];
  for (const m of memories) {
    if (seenText.has(m.text)) continue;
    const files = m.files;
    const cited = files.some((f) => topPaths.some((p) => p.endsWith(f) || f.endsWith(p)));
    const ov = overlap(sc.taskTerms, m.text);
    if (!cited && ov < MEMORY_OVERLAP) continue;
    const ev = m.evidence[0];
    const record = m.record as { remediation?: string };
    out.push({
      key: `memory:${m.id}`,
      kind: m.category === "commitment" ? "constraint" : "failure",
      text: m.text,
      raw_tokens: countTokens(m.text),
      signals: base({ graph_distance: cited ? 0 : UNCITED, overlap: ov }),
      about: {
        turn: `${ev?.session ? `${ev.session} ` : ""}${ev?.turn ?? ""}`.trim(),
        scope: files.join(", ") || "project",
        ...(record.remediation ? { remediation: record.remediation } : {}),
      },
    });
  }
  return out;
}

/**
 * The team's rules and failures (the local copy the last team pull wrote), each marked with its author; a text this
 * machine already has is not repeated. Adds the texts it lists to `seenText`.
 */
function teamCandidates(
  sc: Scene & { projectId: number },
  kinds: ReadonlySet<UnitKind>,
  topPaths: readonly string[],
  seenText: Set<string>,
): Candidate[] {
  const teamKinds = new Map<string, Candidate["kind"]>([
    ...(kinds.has("constraint") ? ([["commitment", "constraint"]] as const) : []),
    ...(kinds.has("failure") ? ([["failure", "failure"]] as const) : []),
  ]);
  if (teamKinds.size === 0) return [];
  const out: Candidate[] = [];
  for (const u of cachedUnits(sc.db, sc.projectId, TEAM_UNITS_READ)) {
    const kind = teamKinds.get(u.category);
    if (!kind || u.status !== "active" || seenText.has(u.text)) continue;
    const ov = overlap(sc.taskTerms, u.text);
    const cited = topPaths.some((p) => u.text.includes(p));
    if (!cited && ov < MEMORY_OVERLAP) continue;
    seenText.add(u.text);
    out.push({
      key: `team:${u.uid}`,
      kind,
      text: u.text,
      raw_tokens: countTokens(u.text),
      signals: base({ graph_distance: cited ? 0 : UNCITED, overlap: ov }),
      about: { turn: `team, by ${u.author}`, author: u.author, scope: "team" },
    });
  }
  return out;
}

/** Sets each candidate's recorded outcomes (how often its unit helped or did not). */
function attachOutcomes(db: Db, projectId: number, out: Candidate[]): void {
  const counts = outcomeCounts(
    db,
    projectId,
    out.map((c) => c.key),
  );
  for (const c of out) {
    const o = counts.get(c.key);
    if (o) c.signals.outcome = o;
  }
}

/** Gathers candidates of the wanted kinds for a task. */
export async function gatherCandidates(
  ctx: CandidateContext,
  task: string,
  files: readonly string[],
  kinds: ReadonlySet<UnitKind>,
  preRanked?: readonly RankedFile[],
): Promise<{ candidates: Candidate[]; ranked: RankedFile[]; features: EvidenceFeatures; confidence: number }> {
  const { db } = ctx;
  const full = preRanked ?? (await ctx.ranker.rank(task, files.length ? PASSED_DEPTH : FILES));
  // Files the session touched or its failures cite: run-time evidence no retrieval has.
  const { paths: touched, named } = ctx.session
    ? sessionPaths(db, ctx.session)
    : { paths: new Map<string, SessionPath>(), named: new Map<number, { name: string; path: string }[]>() };
  const entries = placeFiles(full, files, touched);
  const ranked = entries.map((e) => e.r);
  const namedPaths = extractAnchors(task)
    .filter((a) => a.kind === "path" || a.kind === "frame" || a.kind === "test")
    .map((a) => a.text);
  const features = evidenceFeatures(db, task, full);
  const confidence = confidenceOf(features);
  const sc: Scene & { projectId: number } = {
    db,
    root: ctx.root,
    projectId: ctx.projectId,
    taskTerms: termSet(task),
    namedPaths,
    wanted: new Set(files),
    foreign: foreignTo([...touched.keys()], namedPaths),
    confidence,
    touched,
  };

  const out: Candidate[] = [];
  // The same symbol ranking the evaluation scores: names and own bodies, in every listed file.
  const symbolHits = groupHits(
    await ctx.ranker.rankSymbols(task, Infinity, { files: entries.map((e) => e.r.path) }),
    sc.taskTerms,
  );
  const fileNodes = new Map<string, NodeRow>();
  for (const placed of entries) {
    const lead = fileLead(sc, placed, ranked[0]?.score ?? 0, symbolHits);
    if (!lead) continue;
    fileNodes.set(placed.r.path, lead.node);
    if (kinds.has("file")) out.push(fileCandidate(sc, lead));
    if (kinds.has("symbol")) out.push(...symbolCandidates(lead));
  }
  const top = ranked.slice(0, TOP_FILES).flatMap((r) => (fileNodes.get(r.path) ? [fileNodes.get(r.path)!] : []));
  if (kinds.has("test")) {
    const seen = new Set<number>();
    out.push(...sessionTestCandidates(sc, seen), ...coveringTestCandidates(sc, top, seen));
  }
  if (kinds.has("rule")) out.push(...ruleCandidates(sc, top));
  if (ctx.session) {
    const cites = citesAny([...ranked.slice(0, TOP_FILES).map((r) => r.path), ...touched.keys()]);
    if (kinds.has("constraint")) out.push(...constraintCandidates(sc, ctx.session, cites));
    if (kinds.has("failure")) out.push(...failureCandidates(sc, ctx.session, named, cites));
  }
  const topPaths = ranked.slice(0, TOP_FILES).map((r) => r.path);
  const seenText = new Set(out.map((c) => c.text));
  out.push(...memoryCandidates(sc, kinds, topPaths, seenText));
  out.push(...teamCandidates(sc, kinds, topPaths, seenText));
  attachOutcomes(db, ctx.projectId, out);
  return { candidates: out, ranked, features, confidence };
}

interface SymbolHit {
  key: string;
  /** An identifier the task names. */
  named: boolean;
  /** Share of the name's terms the task uses. */
  ov: number;
  /** Relative strength against the file's best symbol for this task (0–1). */
  share: number;
}

/** A symbol is kept when the task uses at least this share of its name's terms, or its body holds this share of the file's best body match. */
const SYMBOL_KEEP = 0.5;

/**
 * Ranked symbols per file, best first, keeping those the task concerns: named in the task, sharing most of
 * their name's terms, or holding at least half of the file's best body match.
 */
function groupHits(ranked: readonly RankedSymbol[], taskTerms: ReadonlySet<string>): Map<string, SymbolHit[]> {
  const out = new Map<string, SymbolHit[]>();
  const best = new Map<string, number>();
  for (const r of ranked) {
    const name = r.name.split(".").pop()!;
    const ov = taskTerms.has(name.toLowerCase()) ? 1 : overlap(taskTerms, name);
    const named = r.features.named > 0;
    if (!named && ov < SYMBOL_KEEP && r.features.body < SYMBOL_KEEP) continue;
    if (!best.has(r.path)) best.set(r.path, r.score);
    const top = best.get(r.path)!;
    const list = out.get(r.path) ?? [];
    list.push({ key: r.key, named, ov, share: top > 0 ? r.score / top : 0 });
    out.set(r.path, list);
  }
  return out;
}
