// `memcards eval crosssession --dir DIR`: every project with several sessions (a multi-launch aider history, or
// files sharing a project prefix) has its earlier sessions distilled into a fresh store through the real
// distillation; questions derived from those sessions (questions.ts) are asked as a later session would ask
// them. Hit = the answer string in what a system returns (at most 10 snippets and 2,000 tokens).
import { readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";

import type { Turn } from "../../src/conversation/schema.js";
import { distill } from "../../src/memory/distill.js";
import { renderMemoryHits } from "../../src/memory/render.js";
import { recall, type SearchInput, searchMemory } from "../../src/memory/service.js";
import { queryTerms } from "../../src/retrieval/query.js";
import { openDatabase } from "../../src/storage/db.js";
import { searchRawFts } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { identifierTokens } from "../../src/text/identifiers.js";
import { countTokens } from "../../src/text/tokens.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { filesEdited, normalizeForMatch, type QuestionKind, questionsFor } from "./questions.js";

export const MAX_SNIPPETS = 10;
export const MAX_TOKENS = 2000;
const SYSTEMS = ["bm25", "archive", "recency", "search", "search_raw", "recall"] as const;
type System = (typeof SYSTEMS)[number];

export interface Session {
  id: string;
  turns: Turn[];
  cwd?: string | undefined;
}
export interface Project {
  name: string;
  format: string;
  sessions: Session[];
}

/** The text of a turn as an archive of raw turns holds it: what was said, the calls made and their outputs. */
export function turnText(t: Turn): string {
  const calls = t.tool_calls.map((c) => `${c.name} ${JSON.stringify(c.input)}`);
  return [t.text, ...calls, ...t.tool_results.map((r) => r.output)].filter(Boolean).join("\n");
}

/** Files named `owner__repo…` are one project each; others share a project by the name before the first dash. */
function projectOf(file: string): string {
  const name = basename(file).replace(/\.[^.]+$/, "");
  return name.includes("__") ? name : name.split("-")[0]!;
}

/** Splits an aider history at its launch banners (`# aider chat started at`), each a session. */
function launches(turns: Turn[]): Turn[][] {
  const out: Turn[][] = [];
  for (const t of turns) {
    if (t.role === "system" && t.kind === "meta" && /^s\d+$/.test(t.id)) out.push([]);
    (out.at(-1) ?? (out.push([]), out[0]!)).push(t);
  }
  return out.filter((s) => s.some((t) => t.role === "user" && t.kind === "message"));
}

export function loadProjects(dir: string, only?: string[]): Project[] {
  const byName = new Map<string, Project>();
  const files = readdirSync(dir)
    .filter((f) => /\.(md|jsonl|traj|json)$/.test(f) && f !== "probes.json")
    .filter((f) => !only || only.some((o) => f.includes(o)))
    .sort();
  for (const f of files) {
    const t = parseTranscriptFile(join(dir, f));
    const p = byName.get(projectOf(f)) ?? { name: projectOf(f), format: t.format, sessions: [] };
    byName.set(p.name, p);
    const parts = t.format === "aider-md" ? launches(t.turns) : [t.turns];
    parts.forEach((turns, i) => p.sessions.push({ id: `${basename(f)}#${i}`, turns, cwd: t.cwd }));
    if (p.format !== t.format && !p.format.includes(t.format)) p.format = `${p.format}+${t.format}`;
  }
  return [...byName.values()].filter((p) => p.sessions.length >= 2);
}

/** Textbook Okapi BM25 (k1 = 1.2, b = 0.75) over documents of identifier-aware tokens. */
export class Bm25 {
  private readonly tf: Map<string, number>[] = [];
  private readonly len: number[] = [];
  private readonly df = new Map<string, number>();
  constructor(
    docs: string[],
    readonly k1 = 1.2,
    readonly b = 0.75,
  ) {
    for (const d of docs) {
      const m = new Map<string, number>();
      const toks = identifierTokens(d);
      for (const w of toks) m.set(w, (m.get(w) ?? 0) + 1);
      for (const w of m.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
      this.tf.push(m);
      this.len.push(toks.length);
    }
  }
  /** Document indexes, best first. */
  rank(query: string, k: number): number[] {
    const n = this.tf.length;
    const avg = this.len.reduce((a, b) => a + b, 0) / Math.max(1, n);
    const terms = [...new Set(identifierTokens(query))];
    const scores = this.tf.map((m, i) => {
      let s = 0;
      for (const w of terms) {
        const f = m.get(w);
        if (!f) continue;
        const df = this.df.get(w)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += (idf * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * this.len[i]!) / avg));
      }
      return s;
    });
    return scores
      .map((s, i) => [s, i] as const)
      .filter(([s]) => s > 0)
      .sort((a, b) => b[0] - a[0])
      .slice(0, k)
      .map(([, i]) => i);
  }
}

/** Snippets in order, at most MAX_SNIPPETS, cut to MAX_TOKENS in all (the last one cut to fit). */
export function pack(snippets: string[], maxTokens = MAX_TOKENS): string[] {
  const out: string[] = [];
  let used = 0;
  for (const s of snippets.slice(0, MAX_SNIPPETS)) {
    const t = countTokens(s);
    if (used + t <= maxTokens) {
      out.push(s);
      used += t;
      continue;
    }
    const room = maxTokens - used;
    if (room > 20) out.push(s.slice(0, Math.floor((s.length * room) / t)));
    break;
  }
  return out;
}

interface Tally {
  hits: number;
  n: number;
  tokens: number;
}
export interface CrossSessionReport {
  projects: { name: string; format: string; sessions: number; questions: number; units: number }[];
  overall: Record<System, { "hit@10": number; tokens: number; n: number }>;
  by_kind: Record<string, Record<System, { "hit@10": number; tokens: number; n: number }>>;
  by_format: Record<string, Record<System, { "hit@10": number; tokens: number; n: number }>>;
  questions: number;
  distill_ms: number;
  /** Mean milliseconds per call over all questions (recall: per project). */
  latency_ms: { search: number; search_raw: number; recall: number };
  misses?: { system: System; kind: QuestionKind; question: string; answer: string }[];
}

export function runCrossSession(opts: {
  dir: string;
  workDir: string;
  only?: string[];
  perKind?: number;
  misses?: boolean;
  onProject?: (name: string) => void;
}): CrossSessionReport {
  const projects = loadProjects(opts.dir, opts.only);
  const tallies = new Map<string, Tally>();
  const tally = (key: string, hit: boolean, tokens: number) => {
    const t = tallies.get(key) ?? { hits: 0, n: 0, tokens: 0 };
    t.hits += hit ? 1 : 0;
    t.n++;
    t.tokens += tokens;
    tallies.set(key, t);
  };
  const report: CrossSessionReport = {
    projects: [],
    overall: {} as CrossSessionReport["overall"],
    by_kind: {},
    by_format: {},
    questions: 0,
    distill_ms: 0,
    latency_ms: { search: 0, search_raw: 0, recall: 0 },
    ...(opts.misses ? { misses: [] } : {}),
  };
  projects.forEach((p, pi) => {
    opts.onProject?.(p.name);
    const earlier = p.sessions.slice(0, -1);
    const questions = questionsFor(earlier, opts.perKind);
    const path = join(opts.workDir, `xs-${pi}.db`);
    const db = openDatabase(path);
    try {
      const projectId = upsertProject(db, p.name, opts.workDir).id;
      const deps = { db, projectId, root: opts.workDir };
      const t0 = performance.now();
      let units = 0;
      for (const s of earlier) {
        const r = distill(db, projectId, s.id, s.turns, extractSections(s.turns, { cwd: s.cwd }));
        units += r.added;
      }
      report.distill_ms += performance.now() - t0;
      report.projects.push({
        name: p.name,
        format: p.format,
        sessions: p.sessions.length,
        questions: questions.length,
        units,
      });
      // File questions about what the next session edits again: what a brief with no query should bring back.
      const nextFiles = filesEdited(p.sessions.at(-1)!);
      const raw = earlier.flatMap((s) => s.turns.filter((t) => t.kind === "message").map(turnText));
      const bm25 = new Bm25(raw);
      const recent = pack([...raw].reverse());
      let t1 = performance.now();
      const brief = recall(deps, { budgetTokens: MAX_TOKENS }).markdown;
      report.latency_ms.recall += performance.now() - t1;
      for (const q of questions) {
        report.questions++;
        const ask: SearchInput = { query: q.question, limit: MAX_SNIPPETS, budgetTokens: MAX_TOKENS };
        t1 = performance.now();
        const search = searchMemory(deps, ask);
        report.latency_ms.search += performance.now() - t1;
        t1 = performance.now();
        const withRaw = searchMemory(deps, { ...ask, includeRaw: true });
        report.latency_ms.search_raw += performance.now() - t1;
        // What `memcards search` prints for each hit (the unit and its evidence window), and for each raw turn.
        const shown = (r: ReturnType<typeof searchMemory>) => [
          ...r.hits.map((h) => renderMemoryHits({ hits: [h], raw: [] })),
          ...r.raw.map((x) => renderMemoryHits({ hits: [], raw: [x] }).replace(/^No memory unit matches\.\n\n/, "")),
        ];
        const { match } = queryTerms(q.question, 32);
        const got: Record<System, string[]> = {
          bm25: pack(bm25.rank(q.question, MAX_SNIPPETS).map((i) => raw[i]!)),
          archive: pack(searchRawFts(db, projectId, match, MAX_SNIPPETS).map((r) => r.text)),
          recency: recent,
          search: pack(shown(search)),
          search_raw: pack(shown(withRaw)),
          recall: pack([brief]),
        };
        const answer = normalizeForMatch(q.answer);
        for (const sys of SYSTEMS) {
          const text = got[sys].join("\n\n");
          const hit = normalizeForMatch(text).includes(answer);
          const tokens = countTokens(text);
          const keys = [`all|${sys}`, `kind:${q.kind}|${sys}`, `format:${p.format}|${sys}`];
          if (q.kind === "file" && nextFiles.has(q.answer)) keys.push(`kind:file touched next|${sys}`);
          for (const key of keys) tally(key, hit, tokens);
          if (!hit && opts.misses && (sys === "search" || sys === "bm25"))
            report.misses!.push({ system: sys, kind: q.kind, question: q.question, answer: q.answer });
        }
      }
    } finally {
      db.close();
      rmSync(path, { force: true });
      rmSync(`${path}-wal`, { force: true });
      rmSync(`${path}-shm`, { force: true });
    }
  });
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  for (const [key, t] of tallies) {
    const [group, sys] = key.split("|") as [string, System];
    const v = { "hit@10": r3(t.hits / t.n), tokens: Math.round(t.tokens / t.n), n: t.n };
    if (group === "all") report.overall[sys] = v;
    else if (group.startsWith("kind:")) (report.by_kind[group.slice(5)] ??= {} as never)[sys] = v;
    else (report.by_format[group.slice(7)] ??= {} as never)[sys] = v;
  }
  report.distill_ms = Math.round(report.distill_ms);
  const q = Math.max(1, report.questions);
  report.latency_ms = {
    search: Math.round((report.latency_ms.search / q) * 100) / 100,
    search_raw: Math.round((report.latency_ms.search_raw / q) * 100) / 100,
    recall: Math.round((report.latency_ms.recall / Math.max(1, report.projects.length)) * 100) / 100,
  };
  return report;
}

const LABEL: Record<System, string> = {
  bm25: "BM25 over raw turns (k1 1.2, b 0.75)",
  archive: "memcards raw archive alone (FTS5 bm25)",
  recency: "recency (last turns)",
  search: "`memcards search` (units)",
  search_raw: "`memcards search --raw`",
  recall: "`memcards recall` (no query)",
};

export function renderCrossSession(r: CrossSessionReport): string {
  const lines = [
    `${r.projects.length} projects, ${r.questions} questions; distillation ${r.distill_ms} ms in all; search ${r.latency_ms.search} ms, search --raw ${r.latency_ms.search_raw} ms per question; recall ${r.latency_ms.recall} ms per project`,
    "",
    "| project | format | sessions | questions | units |",
    "|---|---|---:|---:|---:|",
    ...r.projects.map((p) => `| ${p.name} | ${p.format} | ${p.sessions} | ${p.questions} | ${p.units} |`),
    "",
    "| system | hit@10 | tokens |",
    "|---|---:|---:|",
    ...SYSTEMS.map((s) => `| ${LABEL[s]} | ${r.overall[s]?.["hit@10"]} | ${r.overall[s]?.tokens} |`),
  ];
  for (const [title, table] of [
    ["kind", r.by_kind],
    ["format", r.by_format],
  ] as const) {
    lines.push("", `| ${title} | n | ${SYSTEMS.join(" | ")} |`, `|---|---:|${SYSTEMS.map(() => "---").join("|")}|`);
    for (const [k, v] of Object.entries(table).sort())
      lines.push(
        `| ${k} | ${v.bm25?.n} | ${SYSTEMS.map((s) => `${v[s]?.["hit@10"]} (${v[s]?.tokens} tok)`).join(" | ")} |`,
      );
  }
  return lines.join("\n");
}
