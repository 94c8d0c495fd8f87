// The steps compress_context composes on the transcript side, each checked with a table of cases: reading the
// source, where to resume, what is kept verbatim, summarizing with re-insertion, and the token accounting.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { openDatabase } from "../../src/storage/db.js";
import { touchSession, upsertProject } from "../../src/storage/projects.js";
import { countTokens } from "../../src/text/tokens.js";
import {
  compressionStats,
  resumeAt,
  splitRecent,
  type StatsInput,
  summarizeSpan,
} from "../../src/transcript/compression/compress.js";
import type { ProbeReport } from "../../src/transcript/compression/probes.js";
import { emptySections } from "../../src/transcript/extraction/merge.js";
import { transcriptReader } from "../../src/transcript/formats/parse.js";
import { claudeProjectDir, readSource, type SourceInput } from "../../src/transcript/formats/source.js";
import { chooseBudget } from "../../src/transcript/rendering/budget.js";
import type { Probe } from "../../src/transcript/schema.js";
import { claudeCodeSession, developmentSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

const turn = (i: number, role: Turn["role"], text: string, extra: Partial<Turn> = {}): Turn => ({
  id: `t${i}`,
  index: i,
  role,
  kind: "message",
  text,
  tool_calls: [],
  tool_results: [],
  ...extra,
});
const ids = (ts: readonly Turn[]) => ts.map((t) => t.id);

describe("readSource", () => {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const projectId = upsertProject(db, "p", dir).id;
  const named = join(dir, "named.jsonl");
  writeFileSync(named, claudeCodeSession(developmentSession()));
  const recorded = join(dir, "recorded.jsonl");
  writeFileSync(recorded, claudeCodeSession(developmentSession(1)));
  touchSession(db, projectId, "rec", { transcriptPath: recorded });
  // A home whose Claude Code folder for this project holds one transcript; another home with none.
  const home = tmpDir();
  mkdirSync(claudeProjectDir(dir, home), { recursive: true });
  const newest = join(claudeProjectDir(dir, home), "newest.jsonl");
  writeFileSync(newest, claudeCodeSession(developmentSession(2)));
  const emptyHome = tmpDir();
  const secret = "sk-ant-api03-" + "A".repeat(40);

  const cases: {
    name: string;
    input: SourceInput;
    home?: string;
    kind?: string;
    path?: string;
    note?: RegExp;
    error?: RegExp;
  }[] = [
    {
      name: "both messages and a path",
      input: { messages: [{ role: "user", content: "hi" }], transcriptPath: named },
      error: /either transcript_path or messages/,
    },
    { name: "an empty message list", input: { messages: [] }, error: /messages is empty/ },
    { name: "inline messages", input: { messages: [{ role: "user", content: "hi" }] }, kind: "messages" },
    { name: "a named transcript", input: { transcriptPath: named }, kind: "transcript_path", path: named },
    { name: "the session's recorded transcript", input: { sessionId: "rec" }, kind: "session", path: recorded },
    {
      name: "nothing named: Claude Code's newest",
      input: {},
      home,
      kind: "newest_claude_code",
      path: newest,
      note: /No transcript was named/,
    },
    {
      name: "an unknown session and no Claude Code transcript",
      input: { sessionId: "nope" },
      home: emptyHome,
      error: /^unknown session_id "nope": known sessions \(newest first\): rec; pass one of them, or transcript_path$/,
    },
    {
      // Never the newest Claude Code transcript under a made-up id.
      name: "an unknown session while Claude Code has a transcript",
      input: { sessionId: "nope" },
      home,
      error: /^unknown session_id "nope"/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = () => readSource({ db, projectId, root: dir, home: c.home ?? emptyHome }, c.input);
      if (c.error) {
        expect(run).toThrow(c.error);
        return;
      }
      const r = run();
      expect(r.source.kind).toBe(c.kind);
      expect(r.source.path).toBe(c.path);
      expect(r.transcript.turns.length).toBeGreaterThan(0);
      if (c.note) expect(r.notes.join(" ")).toMatch(c.note);
      else expect(r.notes).toEqual([]);
    });
  }

  it("says so when no session is recorded at all", () => {
    const fresh = openDatabase(join(tmpDir(), "m.db"));
    expect(() => readSource({ db: fresh, root: dir, home }, { sessionId: "s1" })).toThrow(
      /^unknown session_id "s1": no sessions are recorded yet/,
    );
    fresh.close();
  });

  it("redacts before anything reads the turns, and reads through `read`", () => {
    const seen: string[] = [];
    const r = readSource(
      { db, root: dir, read: (p) => (seen.push(p), transcriptReader()(named)) },
      { transcriptPath: join(dir, "elsewhere.jsonl") },
    );
    expect(seen).toEqual([join(dir, "elsewhere.jsonl")]);
    expect(r.source.path).toBe(named);
    const m = readSource({ db, root: dir }, { messages: [{ role: "user", content: `key ${secret}` }] });
    expect(JSON.stringify(m.transcript)).not.toContain(secret);
  });
});

describe("resumeAt", () => {
  const turns = [0, 1, 2, 3].map((i) => turn(i, "user", `m${i}`));
  const file = { kind: "transcript_path" as const, format: "claude-code-jsonl" };
  const prev = (id: string | null, index: number | null, format = "claude-code-jsonl") => ({
    last_turn_id: id,
    last_turn_index: index,
    format,
  });
  const cases: {
    name: string;
    prev: ReturnType<typeof prev> | undefined;
    source?: { kind: "messages" | "transcript_path"; format: string };
    start: number;
    note?: RegExp;
  }[] = [
    { name: "no previous compression", prev: undefined, start: 0 },
    { name: "after the last turn, found by id", prev: prev("t1", 1), start: 2 },
    { name: "by id even when the position moved", prev: prev("t2", 0), start: 3 },
    { name: "by position when the id is gone", prev: prev("gone", 1), start: 2, note: /resumed from its position/ },
    {
      name: "from the start when the format differs",
      prev: prev("gone", 1, "aider-md"),
      start: 0,
      note: /all of it was read/,
    },
    { name: "from the start when the position is past the end", prev: prev(null, 9), start: 0, note: /all of it/ },
    {
      name: "inline messages never resume",
      prev: prev("t1", 1),
      source: { kind: "messages", format: "messages-json" },
      start: 0,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = resumeAt(c.prev, turns, c.source ?? file);
      expect(r.start).toBe(c.start);
      if (c.note) expect(r.note).toMatch(c.note);
      else expect(r.note).toBeUndefined();
    });
  }
});

describe("splitRecent", () => {
  const five = [turn(0, "user", "u0"), turn(1, "assistant", "a1"), turn(2, "tool", "out"), turn(3, "user", "u3")];
  five.push(turn(4, "assistant", "a4"));
  const toolHeavy = [turn(0, "user", "u0"), turn(1, "assistant", "a1")];
  for (let i = 2; i < 14; i++) toolHeavy.push(turn(i, "tool", `out${i}`));
  toolHeavy.push(turn(14, "user", "u14"));
  const withMeta = [turn(0, "user", "u0"), turn(1, "user", "injected", { kind: "meta" }), turn(2, "user", "  ")];
  const cases: { name: string; turns: Turn[]; start: number; keep: number; span: string[]; kept: string[] }[] = [
    { name: "keep none", turns: five, start: 0, keep: 0, span: ids(five), kept: [] },
    { name: "keep one", turns: five, start: 0, keep: 1, span: ["t0", "t1", "t2", "t3"], kept: ["t4"] },
    { name: "keep two", turns: five, start: 0, keep: 2, span: ["t0", "t1", "t2"], kept: ["t3", "t4"] },
    { name: "a tool turn is carried along", turns: five, start: 0, keep: 3, span: ["t0"], kept: ids(five.slice(1)) },
    { name: "never before start", turns: five, start: 3, keep: 5, span: [], kept: ["t3", "t4"] },
    {
      name: "the kept region is bounded in tool-heavy sessions",
      turns: toolHeavy,
      start: 0,
      keep: 2,
      span: ["t0", "t1", "t2"],
      kept: ids(toolHeavy.slice(3)),
    },
    {
      name: "meta and blank turns are not kept messages",
      turns: withMeta,
      start: 0,
      keep: 1,
      span: [],
      kept: ids(withMeta),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = splitRecent(c.turns, c.start, c.keep);
      expect(ids(r.span)).toEqual(c.span);
      expect(ids(r.kept)).toEqual(c.kept);
    });
  }
});

describe("summarizeSpan", () => {
  const span = [
    turn(0, "user", "Never edit config/prod.yaml. Add a sitemap generator."),
    turn(1, "assistant", "I decided to use xmlbuilder2 instead of string concatenation."),
  ];
  const prev = emptySections();
  prev.next.push({ text: "Add the sitemap link to robots.txt", turn: "old" });
  const cases: { name: string; span: Turn[]; budget: number; probes: boolean; reinserted: boolean }[] = [
    { name: "nothing new keeps the previous sections", span: [], budget: 500, probes: false, reinserted: false },
    { name: "a span adds its facts and probes", span, budget: 2000, probes: true, reinserted: false },
    { name: "a tight budget re-inserts what a probe missed", span, budget: 60, probes: true, reinserted: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = summarizeSpan(c.span, prev, { budget: c.budget });
      expect(s.sections.next.map((f) => f.text)).toContain("Add the sitemap link to robots.txt");
      expect(s.probes.length > 0).toBe(c.probes);
      expect(s.final.markdown.includes("_(re-inserted)_")).toBe(c.reinserted);
      expect(s.final === s.draft).toBe(!c.reinserted);
      expect(s.after.score).toBeGreaterThanOrEqual(s.before.score);
      expect(countTokens(s.final.markdown)).toBeLessThanOrEqual(c.budget);
      if (c.span.length === 0) expect(s.sections).toBe(prev);
      else expect(s.sections.constraints.map((f) => f.text).join(" ")).toContain("Never edit config/prod.yaml");
    });
  }
});

describe("compressionStats", () => {
  const report = (score: number, failed: Probe[] = []): ProbeReport => ({
    total: 2,
    passed: 2 - failed.length,
    score,
    by_type: {},
    failed,
  });
  const missed: Probe = { type: "error", expect: ["boom"], turn: "t1", fact: "boom" };
  const base: StatsInput = {
    turns: [turn(0, "user", "hello there"), turn(1, "assistant", "general kenobi")],
    span: [turn(0, "user", "hello there")],
    kept: [turn(1, "assistant", "general kenobi")],
    spanTokens: 300,
    summary: {
      final: { markdown: "x", tokens: 100, omitted: {} },
      probes: [missed, missed],
      before: report(0.5, [missed]),
      after: report(2 / 3),
      budget: chooseBudget(emptySections(), 300, 100),
    },
    markdown: "one two three",
    skipped: 1,
    prevSeq: 2,
    started: performance.now(),
  };
  const cases: { name: string; x: StatsInput; want: Partial<ReturnType<typeof compressionStats>> }[] = [
    {
      name: "ratio, rounded scores and the next compression number",
      x: base,
      want: { ratio: 3, probe_score_before: 0.5, probe_score: 0.667, compression: 3, kept_recent: 1, skipped: 1 },
    },
    {
      name: "an empty summary has ratio 0",
      x: { ...base, summary: { ...base.summary, final: { markdown: "", tokens: 0, omitted: {} } } },
      want: { ratio: 0, tokens_after: 0 },
    },
    { name: "nothing summarized keeps the compression number", x: { ...base, span: [] }, want: { compression: 2 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = compressionStats(c.x);
      expect(s).toMatchObject(c.want);
      expect(s.turns_total).toBe(c.x.turns.length);
      expect(s.tokens_total_before).toBeGreaterThan(0);
      expect(s.probes_failed).toEqual([]);
      expect(s.ms).toBeGreaterThanOrEqual(0);
    });
  }
});
