// Candidates for a task's cards: retrieved files and their symbols, the tests covering them, the rules
// governing them, and the session's own constraints and failures; each with its run-time signals.
import { statSync } from "node:fs";
import { join } from "node:path";

import type { Sections } from "../conversation/schema.js";
import { extractAnchors } from "../retrieval/query.js";
import type { RankedFile, Ranker } from "../retrieval/rank.js";
import type { Candidate, UnitKind } from "../scoring/schema.js";
import { outcomeCounts } from "../storage/cards.js";
import type { Db } from "../storage/db.js";
import { edgesTo, fileNeighbors } from "../storage/graph/edges.js";
import { fileStamp } from "../storage/graph/files.js";
import { findNodes, getNodes, type NodeRow } from "../storage/graph/nodes.js";
import { listMemories } from "../storage/memories.js";
import { identifierTokens } from "../text/identifiers.js";
import { countTokens } from "../text/tokens.js";

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

function termSet(text: string): Set<string> {
  return new Set(identifierTokens(text).filter((t) => t.length >= 3));
}

/** Share of the unit's distinctive terms that the task also uses (0–1). */
export function overlap(task: Set<string>, text: string): number {
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
): Promise<{ candidates: Candidate[]; ranked: RankedFile[] }> {
  const { db } = ctx;
  const query = files.length ? `${task}\n${files.join("\n")}` : task;
  const ranked = preRanked ? preRanked.slice(0, FILES) : await ctx.ranker.rank(query, FILES);
  const taskTerms = termSet(task);
  const anchors = extractAnchors(query);
  const named = new Set(
    anchors.filter((a) => a.kind === "identifier" || a.kind === "module").map((a) => a.text.split(".").pop()!),
  );
  const namedPaths = anchors
    .filter((a) => a.kind === "path" || a.kind === "frame" || a.kind === "test")
    .map((a) => a.text);
  const wanted = new Set<string>(files);
  // Files the agent says it is looking at take part even when retrieval missed them.
  for (const f of files) if (!ranked.some((r) => r.path === f)) ranked.push({ path: f, score: 0, channels: {} });

  const out: Candidate[] = [];
  const bestScore = ranked[0]?.score ?? 0;
  const fileNodes = new Map<string, NodeRow>();
  for (const [i, r] of ranked.entries()) {
    const nodes = findNodes(db, { path: r.path, limit: 400 });
    const fileNode = nodes.find((n) => n.type === "file" || n.type === "test");
    if (!fileNode) continue;
    fileNodes.set(r.path, fileNode);
    const syms = nodes.filter((n) => n.type === "symbol" && n.name);
    const hits = syms
      .map((s) => ({
        s,
        named: named.has(s.name!),
        ov: taskTerms.has(s.name!.toLowerCase()) ? 1 : overlap(taskTerms, s.name!),
      }))
      .filter((h) => h.named || h.ov >= 0.5)
      .sort((a, b) => Number(b.named) - Number(a.named) || b.ov - a.ov)
      .slice(0, SYMBOLS_PER_FILE);
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
          fused_rank: r.score > 0 ? i + 1 : undefined,
          ...(r.score > 0 && bestScore > 0 ? { relative_score: Math.min(1, r.score / bestScore) } : {}),
          channels: r.channels,
          anchor_hit: anchorHit,
          overlap: overlap(taskTerms, `${r.path} ${hits.map((h) => h.s.name).join(" ")}`),
          stale,
        }),
        about: hits.length
          ? { defines: hits.map((h) => `${h.s.name}${h.s.start_line ? ` (L${h.s.start_line})` : ""}`).join(", ") }
          : {},
      });
    }
    if (kinds.has("symbol") && i < SYMBOL_CARD_FILES) {
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
            fused_rank: r.score > 0 ? i + 1 : undefined,
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
        }),
        about: { governs: paths.slice(0, 3).join(", ") },
      });
    }
  }
  if (ctx.session) {
    const topPaths = ranked.slice(0, 5).map((r) => r.path);
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
      for (const f of ctx.session.failures) {
        out.push({
          key: `failure:${f.signature.slice(0, 80)}`,
          kind: "failure",
          text: f.text,
          raw_tokens: countTokens(f.text),
          signals: base({
            graph_distance: cites(`${f.text} ${f.remediation ?? ""}`) ? 0 : 2,
            overlap: overlap(taskTerms, f.text),
          }),
          about: { turn: f.turn, ...(f.remediation ? { remediation: f.remediation } : {}) },
        });
      }
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
  const counts = outcomeCounts(
    db,
    ctx.projectId,
    out.map((c) => c.key),
  );
  for (const c of out) {
    const o = counts.get(c.key);
    if (o) c.signals.outcome = o;
  }
  return { candidates: out, ranked };
}
