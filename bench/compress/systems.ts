// The five systems of the compression evaluation, each turning a whole transcript into at most `budget`
// tokens of context: (1) the most recent tokens, (2) uniform extractive selection, (3) TF-IDF keyword
// sentences, (4) embedding retrieval over the uncompressed turns, (5) memcards' anchored summary + warm memories.
import { join } from "node:path";

import type { Turn } from "../../src/conversation/schema.js";
import { offlineEmbed } from "../../src/embeddings/offline.js";
import { openDatabase } from "../../src/storage/db.js";
import { listMemories } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { countTokens } from "../../src/text/tokens.js";
import { turnTokens } from "../../src/transcript/compression/compress.js";
import { compressForEval } from "./run.js";

export const SYSTEMS = ["window", "uniform", "tfidf", "retrieval", "memcards"] as const;
export type SystemName = (typeof SYSTEMS)[number];

export function renderTurn(t: Turn): string {
  const calls = t.tool_calls.map((c) => `${c.name} ${JSON.stringify(c.input)}`);
  const outs = t.tool_results.map((r) => r.output);
  return [`${t.role}: ${t.text}`, ...calls, ...outs].join("\n");
}

/** The last `budget` tokens of the turns, whole turns where they fit: a same-size baseline. */
export function slidingWindow(turns: Turn[], budget: number): string {
  const parts: string[] = [];
  let used = 0;
  for (let i = turns.length - 1; i >= 0 && used < budget; i--) {
    const text = renderTurn(turns[i]!);
    const n = turnTokens(turns[i]!);
    if (used + n <= budget) {
      parts.unshift(text);
      used += n;
    } else {
      const keep = Math.floor(((budget - used) / Math.max(1, n)) * text.length);
      parts.unshift(text.slice(text.length - keep));
      used = budget;
    }
  }
  return parts.join("\n");
}

interface Unit {
  turn: number;
  text: string;
  tokens: number;
}

/** Lines of the rendered turns, long lines cut at 300 characters: what the extractive systems choose from. */
export function units(turns: Turn[]): Unit[] {
  const out: Unit[] = [];
  turns.forEach((t, i) => {
    for (const line of renderTurn(t).split("\n")) {
      const s = line.trim();
      for (let k = 0; k < s.length; k += 300) {
        const text = s.slice(k, k + 300);
        if (text.length >= 3) out.push({ turn: i, text, tokens: countTokens(text) });
      }
    }
  });
  return out;
}

/** The chosen units in transcript order, stopping at the budget. */
function pack(all: Unit[], order: number[], budget: number): string {
  const chosen: number[] = [];
  let used = 0;
  for (const i of order) {
    const u = all[i]!;
    if (used + u.tokens > budget) continue;
    chosen.push(i);
    used += u.tokens;
    if (used >= budget - 2) break;
  }
  return chosen
    .sort((a, b) => a - b)
    .map((i) => all[i]!.text)
    .join("\n");
}

/** Units at evenly spaced positions, as many as the budget holds. */
export function uniformExtractive(all: Unit[], budget: number): string {
  const total = all.reduce((a, u) => a + u.tokens, 0);
  if (total <= budget) return all.map((u) => u.text).join("\n");
  let k = Math.max(1, Math.floor((all.length * budget) / total));
  for (;;) {
    const idx = Array.from({ length: k }, (_, j) => Math.floor((j * all.length) / k));
    const used = idx.reduce((a, i) => a + all[i]!.tokens, 0);
    if (used <= budget || k === 1) return pack(all, idx, budget);
    k = Math.max(1, Math.floor(k * 0.95));
  }
}

const terms = (s: string) => s.toLowerCase().match(/[a-z_][a-z0-9_]{2,}/g) ?? [];

/** Units ranked by the TF-IDF weight of their terms (IDF over units), as many as the budget holds. */
export function tfidfExtractive(all: Unit[], budget: number): string {
  const df = new Map<string, number>();
  const tfs = all.map((u) => {
    const tf = new Map<string, number>();
    for (const w of terms(u.text)) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
    return tf;
  });
  const n = all.length;
  const score = tfs.map((tf, i) => {
    let s = 0;
    for (const [w, c] of tf) s += (1 + Math.log(c)) * Math.log(n / df.get(w)!);
    return s / (1 + Math.log(1 + all[i]!.tokens));
  });
  const order = score.map((_, i) => i).sort((a, b) => score[b]! - score[a]! || a - b);
  return pack(all, order, budget);
}

/** Chunks of about 150 tokens (consecutive units of one turn). */
export function chunks(all: Unit[]): Unit[] {
  const out: Unit[] = [];
  for (const u of all) {
    const last = out[out.length - 1];
    if (last && last.turn === u.turn && last.tokens + u.tokens <= 150) {
      last.text += `\n${u.text}`;
      last.tokens += u.tokens;
    } else out.push({ ...u });
  }
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Chunks of the uncompressed turns nearest to the query by embedding, as many as the budget holds. */
export function embeddingRetrieval(all: Unit[], query: string, budget: number): string {
  const cs = chunks(all);
  const q = offlineEmbed(query);
  const sims = cs.map((c) => dot(q, offlineEmbed(c.text)));
  const order = sims.map((_, i) => i).sort((a, b) => sims[b]! - sims[a]! || a - b);
  return pack(cs, order, budget);
}

/** The query a retrieval system has without knowing the probes: the session's first and last requests. */
export function sessionQuery(turns: Turn[]): string {
  const users = turns.filter((t) => t.role === "user" && t.kind === "message" && !t.sidechain && t.text.trim());
  return [users[0]?.text ?? "", users[users.length - 1]?.text ?? ""].join("\n").slice(0, 4000);
}

/**
 * memcards: the anchored summary of the whole transcript (scored as first rendered, before re-insertion)
 * with `share` of the budget, then warm memory units while the budget lasts, then the latest turns
 * verbatim in what is left (as compress_context returns them). Runs in a fresh store.
 */
export function memcardsContext(
  path: string,
  budget: number,
  workDir: string,
  tag: string,
  share = 0.8,
): { text: string; memories: number; summaryTokens: number; memory: string[] } {
  const db = openDatabase(join(workDir, `${tag}.db`));
  try {
    const project = upsertProject(db, `eval:${tag}`, workDir);
    const r = compressForEval(
      { db, projectId: project.id, root: workDir },
      { transcriptPath: path, keepRecent: 0, budgetTokens: Math.max(200, Math.floor(budget * share)) },
    );
    const summaryTokens = countTokens(r.draft);
    let used = summaryTokens;
    const lines: string[] = [];
    // Commitments first: a dropped constraint is the costliest loss; then by importance.
    const warm = listMemories(db, project.id, { tier: "warm", limit: 500 }).sort(
      (a, b) =>
        Number(b.category === "commitment") - Number(a.category === "commitment") || b.importance - a.importance,
    );
    for (const m of warm) {
      const line = `- [${m.category}] ${m.text}`;
      const n = countTokens(line);
      if (used + n > budget) continue;
      lines.push(line);
      used += n;
    }
    let text = lines.length ? `${r.draft}\n\n## Memories\n${lines.join("\n")}` : r.draft;
    // What compress_context returns after the summary: the latest messages verbatim, here up to the budget.
    const room = budget - countTokens(text) - 8;
    if (room > 50) text += `\n\n## Recent Messages (verbatim)\n${slidingWindow(r.all_turns, room)}`;
    // Its searchable memory: the summary's lines and every active unit (warm and cold).
    const memory = [
      ...r.draft.split("\n").filter((l) => l.trim()),
      ...listMemories(db, project.id, { limit: 5000 }).map((u) => `[${u.category}] ${u.text}`),
    ];
    return { text, memories: lines.length, summaryTokens, memory };
  } finally {
    db.close();
  }
}
