// `memcards eval recall --locomo FILE`: LoCoMo conversations ingested session by session through the same
// distillation as compress_context; each question searched; evidence recall@5/@10 of the hits' source turns,
// for distilled units alone, distilled + raw archive, and a plain BM25 over the raw turns, in one run.
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

import { z } from "zod";

import type { Turn } from "../src/conversation/schema.js";
import { distill } from "../src/memory/distill.js";
import { searchMemory } from "../src/memory/service.js";
import { queryTerms } from "../src/retrieval/query.js";
import { checkpointWal, openDatabase } from "../src/storage/db.js";
import { searchRawFts } from "../src/storage/memories.js";
import { upsertProject } from "../src/storage/projects.js";
import { extractSections } from "../src/transcript/extraction/extract.js";

const LocomoTurn = z.object({ speaker: z.string(), dia_id: z.string(), text: z.string() }).passthrough();
const Locomo = z.array(
  z
    .object({
      sample_id: z.string().optional(),
      conversation: z.record(z.string(), z.unknown()),
      qa: z.array(
        z
          .object({ question: z.string(), evidence: z.array(z.string()).default([]), category: z.number() })
          .passthrough(),
      ),
    })
    .passthrough(),
);

const SYSTEMS = ["memcards", "memcards_distilled", "bm25"] as const;
/** Weight of the distilled units' evidence against the raw archive when both are searched. */
export const RAW_DISTILLED_WEIGHT = 0.2;
type System = (typeof SYSTEMS)[number];

export interface RecallReport {
  overall: Record<System, { "recall@5": number; "recall@10": number }>;
  by_category: Record<string, Record<System, { "recall@5": number; "recall@10": number; n: number }>>;
  questions: number;
  conversations: number;
  ingest_ms: number;
  store_bytes: number;
}

/** Ranks merged by weighted reciprocal rank (k = 10), each source turn once. */
function fuse(lists: string[][], weights: number[] = lists.map(() => 1), k = 10): string[] {
  const score = new Map<string, number>();
  lists.forEach((l, li) => {
    const w = weights[li] ?? 1;
    l.forEach((id, i) => score.set(id, (score.get(id) ?? 0) + w / (k + i + 1)));
  });
  return [...score.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

const recallAt = (sources: string[], evidence: string[], k: number) => {
  const top = new Set(sources.slice(0, k));
  return evidence.filter((e) => top.has(e)).length / evidence.length;
};

export function runRecallEval(opts: {
  file: string;
  workDir: string;
  onConversation?: (i: number, n: number) => void;
}): RecallReport {
  const data = Locomo.parse(JSON.parse(readFileSync(opts.file, "utf8")));
  const sums: Record<string, Record<System, { r5: number; r10: number; n: number }>> = {};
  const add = (cat: string, sys: System, r5: number, r10: number) => {
    const c = (sums[cat] ??= {
      memcards: { r5: 0, r10: 0, n: 0 },
      memcards_distilled: { r5: 0, r10: 0, n: 0 },
      bm25: { r5: 0, r10: 0, n: 0 },
    });
    c[sys].r5 += r5;
    c[sys].r10 += r10;
    c[sys].n++;
  };
  let ingestMs = 0;
  let storeBytes = 0;
  let questions = 0;
  data.forEach((conv, ci) => {
    opts.onConversation?.(ci + 1, data.length);
    const path = join(opts.workDir, `locomo-${ci}.db`);
    const db = openDatabase(path);
    try {
      const projectId = upsertProject(db, `locomo-${ci}`, opts.workDir).id;
      const deps = { db, projectId, root: opts.workDir };
      const c = conv.conversation;
      const speakerA = String(c.speaker_a ?? "");
      const sessions = Object.keys(c)
        .filter((k) => /^session_\d+$/.test(k))
        .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]));
      const t0 = performance.now();
      for (const s of sessions) {
        const turns = z.array(LocomoTurn).parse(c[s]);
        const span: Turn[] = turns.map((t, i) => ({
          id: t.dia_id,
          index: i,
          role: t.speaker === speakerA ? "user" : "assistant",
          kind: "message",
          text: `${t.speaker}: ${t.text}`,
          tool_calls: [],
          tool_results: [],
        }));
        distill(db, projectId, `${conv.sample_id ?? ci}:${s}`, span, extractSections(span));
      }
      ingestMs += performance.now() - t0;
      for (const q of conv.qa) {
        if (q.evidence.length === 0) continue;
        questions++;
        const cat = String(q.category);
        const hits = searchMemory(deps, { query: q.question, limit: 20, includeInactive: true }).hits;
        const distilled = fuse([hits.flatMap((h) => h.evidence.map((e) => e.turn))]);
        const raw = searchRawFts(db, projectId, queryTerms(q.question, 32).match, 20).map((r) => r.turn_id);
        // The raw archive holds every word said; distilled units add their evidence turns as a second opinion.
        const both = fuse([raw, distilled], [1, RAW_DISTILLED_WEIGHT]);
        add(cat, "memcards_distilled", recallAt(distilled, q.evidence, 5), recallAt(distilled, q.evidence, 10));
        add(cat, "memcards", recallAt(both, q.evidence, 5), recallAt(both, q.evidence, 10));
        add(cat, "bm25", recallAt(raw, q.evidence, 5), recallAt(raw, q.evidence, 10));
      }
    } finally {
      checkpointWal(db, "TRUNCATE");
      db.close();
      storeBytes += statSync(path).size;
      rmSync(path, { force: true });
    }
  });
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const by_category: RecallReport["by_category"] = {};
  const total: Record<System, { r5: number; r10: number; n: number }> = {
    memcards: { r5: 0, r10: 0, n: 0 },
    memcards_distilled: { r5: 0, r10: 0, n: 0 },
    bm25: { r5: 0, r10: 0, n: 0 },
  };
  for (const [cat, s] of Object.entries(sums)) {
    by_category[cat] = {} as RecallReport["by_category"][string];
    for (const sys of SYSTEMS) {
      const v = s[sys];
      by_category[cat]![sys] = { "recall@5": r3(v.r5 / v.n), "recall@10": r3(v.r10 / v.n), n: v.n };
      total[sys].r5 += v.r5;
      total[sys].r10 += v.r10;
      total[sys].n += v.n;
    }
  }
  const overall = Object.fromEntries(
    SYSTEMS.map((sys) => [
      sys,
      { "recall@5": r3(total[sys].r5 / total[sys].n), "recall@10": r3(total[sys].r10 / total[sys].n) },
    ]),
  ) as RecallReport["overall"];
  return {
    overall,
    by_category,
    questions,
    conversations: data.length,
    ingest_ms: Math.round(ingestMs),
    store_bytes: storeBytes,
  };
}

export function renderRecallEval(r: RecallReport): string {
  const lines = [
    `${r.conversations} conversations, ${r.questions} questions with evidence; ingest ${r.ingest_ms} ms in all; stores ${(r.store_bytes / 1048576).toFixed(1)} MB in all`,
    "",
    "| category | n | memcards (distilled + raw) R@5 / R@10 | distilled only | BM25 over raw turns |",
    "|---|---:|---|---|---|",
  ];
  for (const [cat, s] of Object.entries(r.by_category).sort()) {
    lines.push(
      `| ${cat} | ${s.bm25.n} | ${s.memcards["recall@5"]} / ${s.memcards["recall@10"]} | ${s.memcards_distilled["recall@5"]} / ${s.memcards_distilled["recall@10"]} | ${s.bm25["recall@5"]} / ${s.bm25["recall@10"]} |`,
    );
  }
  const o = r.overall;
  lines.push(
    `| all | ${r.questions} | ${o.memcards["recall@5"]} / ${o.memcards["recall@10"]} | ${o.memcards_distilled["recall@5"]} / ${o.memcards_distilled["recall@10"]} | ${o.bm25["recall@5"]} / ${o.bm25["recall@10"]} |`,
  );
  return lines.join("\n");
}
