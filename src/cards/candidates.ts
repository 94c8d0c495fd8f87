// Candidates for a task's cards: retrieved files and their symbols, the tests covering them, the rules
// governing them, and the session's own constraints and failures; each with its run-time signals.
import { statSync } from "node:fs";
import { join } from "node:path";

import type { Sections } from "../conversation/schema.js";
import { detectLanguage, isCodeLanguage, type LanguageId } from "../repo/languages.js";
import { extractAnchors, looksLikeCode } from "../retrieval/query.js";
import type { RankedFile, RankedSymbol, Ranker } from "../retrieval/rank.js";
import { confidenceOf, type EvidenceFeatures } from "../scoring/calibration.js";
import type { Candidate, UnitKind } from "../scoring/schema.js";
import { outcomeCounts } from "../storage/cards.js";
import type { Db } from "../storage/db.js";
import { edgesTo, fileNeighbors } from "../storage/graph/edges.js";
import { fileStamp } from "../storage/graph/files.js";
import { fileLevelNodes, findNodes, getNodes, type NodeRow, symbolDefiners } from "../storage/graph/nodes.js";
import { listMemories } from "../storage/memories.js";
import { cachedUnits } from "../storage/team/outbox.js";
import { identifierTokens } from "../text/identifiers.js";
import { countTokens } from "../text/tokens.js";
import { evidenceFeatures } from "./evidence.js";

export interface CandidateContext {
  db: Db;
  projectId: number;
  root: string;
  ranker: Ranker;
  /** The session's stored summary, when the call names a session. */
  session?: Sections;
}

const FILES = 12;
const SYMBOLS_PER_FILE = 3;
/** Symbol cards only for the top files: below them a file card (which names its symbols) says enough. */
const SYMBOL_CARD_FILES = 3;
const SYMBOL_CARDS_PER_FILE = 2;
/** How deep the ranking is read to place files the caller passed among the others. */
const PASSED_DEPTH = 100;
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

function termSet(text: string): Set<string> {
  return new Set(identifierTokens(text).filter((t) => t.length >= 3));
}

/** Share of the unit's distinctive terms that the task also uses (0–1). */
export function overlap(task: ReadonlySet<string>, text: string): number {
  const unit = termSet(text);
  if (unit.size === 0) return 0;
  let hit = 0;
  for (const t of unit) if (task.has(t)) hit++;
  return Math.min(1, hit / Math.min(unit.size, 8));
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

/** Gathers candidates of the wanted kinds for a task. */
export async function gatherCandidates(
  ctx: CandidateContext,
  task: string,
  files: readonly string[],
  kinds: ReadonlySet<UnitKind>,
  preRanked?: readonly RankedFile[],
): Promise<{ candidates: Candidate[]; ranked: RankedFile[]; features: EvidenceFeatures; confidence: number }> {
  const { db } = ctx;
  // The files the caller passes are placed by their own rank among the others, never pulled to the top.
  const full = preRanked ?? (await ctx.ranker.rank(task, files.length ? PASSED_DEPTH : FILES));
  const entries: { r: RankedFile; rank: number | undefined }[] = full
    .slice(0, FILES)
    .map((r, i) => ({ r, rank: i + 1 }));
  for (const f of files) {
    if (entries.some((e) => e.r.path === f)) continue;
    const at = full.findIndex((r) => r.path === f);
    entries.push(
      at >= 0 ? { r: full[at]!, rank: at + 1 } : { r: { path: f, score: 0, channels: {} }, rank: undefined },
    );
  }
  // Files the session touched or its failures cite: run-time evidence no retrieval has.
  const { paths: touched, named } = ctx.session
    ? sessionPaths(db, ctx.session)
    : { paths: new Map<string, SessionPath>(), named: new Map<number, { name: string; path: string }[]>() };
  for (const [p, t] of touched) {
    if (t.type !== "file" || entries.some((e) => e.r.path === p)) continue;
    const at = full.findIndex((r) => r.path === p);
    entries.push(
      at >= 0 ? { r: full[at]!, rank: at + 1 } : { r: { path: p, score: 0, channels: {} }, rank: undefined },
    );
  }
  const ranked = entries.map((e) => e.r);
  const taskTerms = termSet(task);
  const anchors = extractAnchors(task);
  const namedPaths = anchors
    .filter((a) => a.kind === "path" || a.kind === "frame" || a.kind === "test")
    .map((a) => a.text);
  const wanted = new Set<string>(files);
  const foreign = foreignTo([...touched.keys()], namedPaths);
  const features = evidenceFeatures(db, task, full);
  const confidence = confidenceOf(features);

  const out: Candidate[] = [];
  const bestScore = ranked[0]?.score ?? 0;
  // The same symbol ranking the evaluation scores: names and own bodies, in every listed file.
  const symbolHits = groupHits(
    await ctx.ranker.rankSymbols(task, Infinity, { files: entries.map((e) => e.r.path) }),
    taskTerms,
  );
  const fileNodes = new Map<string, NodeRow>();
  for (const { r, rank } of entries) {
    const nodes = findNodes(db, { path: r.path, limit: 400 });
    const fileNode = nodes.find((n) => n.type === "file" || n.type === "test");
    if (!fileNode) continue;
    fileNodes.set(r.path, fileNode);
    const syms = nodes.filter((n) => n.type === "symbol" && n.name);
    const session = touched.get(r.path);
    const symbolCards = kinds.has("symbol") && ((rank !== undefined && rank <= SYMBOL_CARD_FILES) || !!session);
    // A file the session touched is as strong a lead as the best retrieval hit, whatever the task's wording.
    const relative = session ? 1 : r.score > 0 && bestScore > 0 ? Math.min(1, r.score / bestScore) : undefined;
    const trust = session ? 1 : foreign(r.path) ? FOREIGN_TRUST * confidence : confidence;
    const byKey = new Map(syms.map((n) => [n.key, n]));
    const hits = (symbolHits.get(r.path) ?? []).flatMap((h) => {
      const s = byKey.get(h.key);
      return s ? [{ ...h, s }] : [];
    });
    hits.splice(SYMBOLS_PER_FILE);
    const anchorHit =
      wanted.has(r.path) ||
      r.channels.anchors !== undefined ||
      namedPaths.some((p) => r.path.endsWith(p.replace(/^\.?\//, "")));
    const stale = staleOnDisk(db, ctx.root, r.path);
    if (kinds.has("file")) {
      out.push({
        key: fileNode.key,
        kind: "file",
        path: r.path,
        text: hits.map((h) => h.s.summary ?? h.s.name).join("\n"),
        raw_tokens: Math.min(fileNode.tokens, 400),
        signals: base({
          fused_rank: r.score > 0 ? rank : undefined,
          ...(relative !== undefined ? { relative_score: relative } : {}),
          evidence: trust,
          ...(session ? { session_hit: true, edited: session.edited } : {}),
          channels: r.channels,
          anchor_hit: anchorHit,
          overlap: overlap(taskTerms, `${r.path} ${hits.map((h) => h.s.name).join(" ")}`),
          stale,
        }),
        about: {
          ...(hits.length
            ? { defines: hits.map((h) => `${h.s.name}${h.s.start_line ? ` (L${h.s.start_line})` : ""}`).join(", ") }
            : {}),
          ...(session ? { session: session.why } : {}),
        },
      });
    }
    if (symbolCards) {
      for (const h of hits.slice(0, SYMBOL_CARDS_PER_FILE)) {
        out.push({
          key: h.s.key,
          kind: "symbol",
          path: r.path,
          name: h.s.name!,
          ...(h.s.start_line && h.s.end_line ? { lines: [h.s.start_line, h.s.end_line] as [number, number] } : {}),
          text: (h.s.summary ?? "").split("\n")[0] ?? "",
          raw_tokens: h.s.tokens,
          signals: base({
            fused_rank: r.score > 0 ? rank : undefined,
            ...(relative !== undefined ? { relative_score: relative * h.share } : {}),
            evidence: trust,
            ...(session ? { session_hit: true, edited: session.edited } : {}),
            channels: r.channels,
            anchor_hit: h.named,
            overlap: h.ov,
            stale,
          }),
          about: { kind: h.s.kind ?? "symbol" },
        });
      }
    }
  }
  const top = ranked.slice(0, 5).flatMap((r) => (fileNodes.get(r.path) ? [fileNodes.get(r.path)!] : []));
  if (kinds.has("test")) {
    const seen = new Set<number>();
    // Tests the session's failures cite (or it touched) first: the next step is to make them pass.
    for (const [p, t] of touched) {
      if (t.type !== "test") continue;
      const [node] = getNodes(db, [t.id]);
      if (!node?.path) continue;
      seen.add(t.id);
      const covers = fileNeighbors(db, t.id).find((n) => n.type === "test_covers" && n.dir === "out");
      const coveredPath = covers ? getNodes(db, [covers.id])[0]?.path : undefined;
      out.push({
        key: node.key,
        kind: "test",
        path: p,
        text: p,
        raw_tokens: Math.min(node.tokens, 400),
        signals: base({
          graph_distance: 0,
          overlap: overlap(taskTerms, p),
          stale: staleOnDisk(db, ctx.root, p),
          evidence: 1,
          session_hit: true,
          edited: t.edited,
          anchor_hit: true, // named by the session: its failure cites it, or the session changed it
        }),
        about: { covers: coveredPath ?? p, session: t.why },
      });
    }
    for (const f of top.slice(0, 3)) {
      for (const n of fileNeighbors(db, f.id)) {
        if (n.type !== "test_covers" || n.dir !== "in" || seen.has(n.id)) continue;
        seen.add(n.id);
        const [t] = getNodes(db, [n.id]);
        if (!t?.path) continue;
        out.push({
          key: t.key,
          kind: "test",
          path: t.path,
          text: t.path,
          raw_tokens: Math.min(t.tokens, 400),
          signals: base({
            graph_distance: f === top[0] ? 0 : 1, // a test of the top-ranked file is as close to the edit as the file
            evidence: foreign(t.path) ? FOREIGN_TRUST * confidence : confidence,
            overlap: overlap(taskTerms, t.path),
            stale: staleOnDisk(db, ctx.root, t.path),
          }),
          about: { covers: f.path ?? "" },
        });
      }
    }
  }
  if (kinds.has("rule")) {
    const governs = new Map<number, string[]>();
    for (const e of edgesTo(
      db,
      top.map((t) => t.id),
      "precondition",
    )) {
      const f = top.find((t) => t.id === e.dst);
      if (f?.path) governs.set(e.src, [...(governs.get(e.src) ?? []), f.path]);
    }
    for (const rule of getNodes(db, [...governs.keys()])) {
      const paths = governs.get(rule.id) ?? [];
      const onTop = top.slice(0, 3).some((t) => paths.includes(t.path ?? ""));
      out.push({
        key: rule.key,
        kind: "rule",
        path: rule.path ?? rule.key,
        text: rule.summary ?? "",
        raw_tokens: rule.tokens,
        signals: base({
          graph_distance: onTop ? 0 : 1,
          overlap: overlap(taskTerms, rule.summary ?? ""),
          off_scope: !onTop,
          evidence: confidence,
        }),
        about: { governs: paths.slice(0, 3).join(", ") },
      });
    }
  }
  if (ctx.session) {
    const topPaths = [...ranked.slice(0, 5).map((r) => r.path), ...touched.keys()];
    const cites = (text: string) =>
      topPaths.some((p) => text.includes(p) || text.includes(p.slice(p.lastIndexOf("/") + 1)));
    if (kinds.has("constraint")) {
      for (const c of ctx.session.constraints) {
        out.push({
          key: `constraint:${c.turn}`,
          kind: "constraint",
          text: c.text,
          raw_tokens: countTokens(c.text),
          signals: base({ graph_distance: cites(c.text) ? 0 : 2, overlap: overlap(taskTerms, c.text) }),
          about: { turn: c.turn },
        });
      }
    }
    if (kinds.has("failure")) {
      ctx.session.failures.forEach((f, i) => {
        // Names the failure gives of indexed definitions (a test function): the card says where they live.
        const names = named.get(i) ?? [];
        const where = names.map((n) => `${n.name} in ${n.path}`).join(", ");
        out.push({
          key: `failure:${f.signature.slice(0, 80)}`,
          kind: "failure",
          text: f.text,
          raw_tokens: countTokens(`${f.text} ${where}`),
          signals: base({
            graph_distance: names.length > 0 || cites(`${f.text} ${f.remediation ?? ""}`) ? 0 : 2,
            overlap: overlap(taskTerms, f.text),
          }),
          about: {
            turn: f.turn,
            ...(where ? { cites: where } : {}),
            ...(f.remediation ? { remediation: f.remediation } : {}),
          },
        });
      });
    }
  }
  // Warm memory units of the project (earlier sessions): commitments and failures that cite the top files
  // or share the task's terms.
  const memories = [
    ...(kinds.has("constraint")
      ? listMemories(db, ctx.projectId, { category: "commitment", tier: "warm", limit: 200 })
      : []),
    ...(kinds.has("failure") ? listMemories(db, ctx.projectId, { category: "failure", tier: "warm", limit: 200 }) : []),
  ];
  const topPaths = ranked.slice(0, 5).map((r) => r.path);
  const seenText = new Set(out.map((c) => c.text));
  for (const m of memories) {
    if (seenText.has(m.text)) continue;
    const files = m.files;
    const cited = files.some((f) => topPaths.some((p) => p.endsWith(f) || f.endsWith(p)));
    const ov = overlap(taskTerms, m.text);
    if (!cited && ov < 0.34) continue;
    const ev = m.evidence[0];
    const record = m.record as { remediation?: string };
    out.push({
      key: `memory:${m.id}`,
      kind: m.category === "commitment" ? "constraint" : "failure",
      text: m.text,
      raw_tokens: countTokens(m.text),
      signals: base({ graph_distance: cited ? 0 : 2, overlap: ov }),
      about: {
        turn: `${ev?.session ? `${ev.session} ` : ""}${ev?.turn ?? ""}`.trim(),
        scope: files.join(", ") || "project",
        ...(record.remediation ? { remediation: record.remediation } : {}),
      },
    });
  }
  // The team's rules and failures (the local copy the last team pull wrote), each marked with its author; a
  // text this machine already has locally is not repeated.
  const teamKinds = new Map<string, Candidate["kind"]>([
    ...(kinds.has("constraint") ? ([["commitment", "constraint"]] as const) : []),
    ...(kinds.has("failure") ? ([["failure", "failure"]] as const) : []),
  ]);
  if (teamKinds.size > 0) {
    for (const u of cachedUnits(db, ctx.projectId, 400)) {
      const kind = teamKinds.get(u.category);
      if (!kind || u.status !== "active" || seenText.has(u.text)) continue;
      const ov = overlap(taskTerms, u.text);
      const cited = topPaths.some((p) => u.text.includes(p));
      if (!cited && ov < 0.34) continue;
      seenText.add(u.text);
      out.push({
        key: `team:${u.uid}`,
        kind,
        text: u.text,
        raw_tokens: countTokens(u.text),
        signals: base({ graph_distance: cited ? 0 : 2, overlap: ov }),
        about: { turn: `team, by ${u.author}`, author: u.author, scope: "team" },
      });
    }
  }
  const counts = outcomeCounts(
    db,
    ctx.projectId,
    out.map((c) => c.key),
  );
  for (const c of out) {
    const o = counts.get(c.key);
    if (o) c.signals.outcome = o;
  }
  return { candidates: out, ranked, features, confidence };
}

interface SessionPath {
  id: number;
  type: "file" | "test";
  why: string;
  /** The session changed the file (its ledger lists it), not only cited it in a failure. */
  edited: boolean;
}

interface FileRef {
  id: number;
  path: string;
  type: string;
}

/** At most this many identifiers of one failure are looked up among definitions, and this many failures. */
const IDENTS_PER_FAILURE = 12;
const FAILURES_READ = 20;
/** A name, possibly qualified (`tests::put_get`, `FooTest.testBar`), that does not start inside a path. */
const NAME_RE = /(?<![\w$./#-])([A-Za-z_$][\w$]*(?:(?:::|\.|#)[A-Za-z_$][\w$]*){0,4})/g;

/**
 * Identifiers a failure names that look like code (a test function, a qualified member), in order of
 * appearance, capped: each as its last segment with the qualifier before it.
 */
export function failureIdentifiers(text: string): { name: string; qualifier: string[] }[] {
  const out = new Map<string, { name: string; qualifier: string[] }>();
  for (const m of text.slice(0, 4000).matchAll(NAME_RE)) {
    // `File.java:12` is a file and line, not a member.
    if (/^:\d/.test(text.slice(m.index + m[0].length, m.index + m[0].length + 2))) continue;
    const parts = m[1]!.split(/::|\.|#/);
    const name = parts[parts.length - 1]!;
    const qualifier = parts.slice(0, -1);
    // A dotted lower-case run is a file or module name (`store.go`), not a member.
    const member = qualifier.length > 0 && m[1]!.includes("::") ? true : qualifier.some((q) => /[A-Z]/.test(q));
    if (!(looksLikeCode(name) || (member && name.length >= 3))) continue;
    if (!out.has(name)) out.set(name, { name, qualifier });
    if (out.size >= IDENTS_PER_FAILURE) break;
  }
  return [...out.values()];
}

/**
 * The indexed file defining an identifier, when exactly one does: among several, the test files (or test
 * definitions) are preferred, then those whose qualified name carries the identifier's qualifier.
 */
function definingFile(
  db: Db,
  byId: ReadonlyMap<number, FileRef>,
  ident: { name: string; qualifier: string[] },
): FileRef | undefined {
  const defs = symbolDefiners(db, ident.name);
  const one = (ds: typeof defs) => {
    const ids = new Set(ds.map((d) => d.fileId));
    return ids.size === 1 ? byId.get(ds[0]!.fileId) : undefined;
  };
  if (defs.length === 0) return undefined;
  const steps = [
    defs,
    defs.filter((d) => d.fileType === "test" || d.kind === "test"),
    defs.filter((d) => ident.qualifier.length > 0 && ident.qualifier.every((q) => d.qual.split(".").includes(q))),
  ];
  for (const ds of steps) {
    if (ds.length === 0) continue;
    const f = one(ds);
    if (f) return f;
  }
  return undefined;
}

/**
 * Indexed files one failure cites: its paths and stack frames (a bare file name resolves when exactly one
 * indexed path ends with it) and the identifiers it names that exactly one indexed file defines.
 */
function failureCites(
  db: Db,
  all: readonly FileRef[],
  byId: ReadonlyMap<number, FileRef>,
  text: string,
): { file: FileRef; name?: string }[] {
  const out: { file: FileRef; name?: string }[] = [];
  const push = (file: FileRef | undefined, name?: string) => {
    if (file && !out.some((o) => o.file.id === file.id)) out.push({ file, ...(name ? { name } : {}) });
  };
  for (const a of extractAnchors(text))
    if (a.kind === "path" || a.kind === "frame" || a.kind === "test") push(resolvePath(all, a.text));
  for (const ident of failureIdentifiers(text)) push(definingFile(db, byId, ident), ident.name);
  return out;
}

function resolvePath(all: readonly FileRef[], ref: string): FileRef | undefined {
  const clean = ref
    .replace(/^\.?\//, "")
    .replace(/::.*$/, "")
    .replace(/:\d+(:\d+)?$/, "");
  const exact = all.find((n) => n.path === clean);
  if (exact) return exact;
  const tail = all.filter((n) => n.path.endsWith(`/${clean}`));
  return tail.length === 1 ? tail[0] : undefined;
}

/**
 * Indexed files the session touched (its summary's file list) or its failures cite (paths, stack frames and
 * the identifiers they name), each with why; and, per failure (by index), the files it cites by name only.
 */
function sessionPaths(
  db: Db,
  session: Sections,
): { paths: Map<string, SessionPath>; named: Map<number, { name: string; path: string }[]> } {
  const all = fileLevelNodes(db).filter((n) => n.type === "file" || n.type === "test");
  const byId = new Map(all.map((n) => [n.id, n]));
  const paths = new Map<string, SessionPath>();
  const named = new Map<number, { name: string; path: string }[]>();
  const add = (n: FileRef | undefined, why: string, edited: boolean) => {
    if (!n) return;
    const prev = paths.get(n.path);
    if (prev) prev.edited ||= edited;
    else paths.set(n.path, { id: n.id, type: n.type === "test" ? "test" : "file", why, edited });
  };
  session.failures.slice(0, FAILURES_READ).forEach((f, i) => {
    const cites = failureCites(db, all, byId, f.text);
    for (const c of cites) add(c.file, "cited by a failure in this session", false);
    const byName = cites.flatMap((c) =>
      c.name && !f.text.includes(c.file.path) ? [{ name: c.name, path: c.file.path }] : [],
    );
    if (byName.length) named.set(i, byName);
  });
  for (const p of Object.keys(session.files)) add(resolvePath(all, p), "touched in this session", true);
  return { paths, named };
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
    if (!named && ov < 0.5 && r.features.body < 0.5) continue;
    if (!best.has(r.path)) best.set(r.path, r.score);
    const top = best.get(r.path)!;
    const list = out.get(r.path) ?? [];
    list.push({ key: r.key, named, ov, share: top > 0 ? r.score / top : 0 });
    out.set(r.path, list);
  }
  return out;
}
