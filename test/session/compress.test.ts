// The session's steps after compression, each with a table of cases: store the summary, distil the span (inline,
// in the background, or inline when the background cannot take it), and when neither happens.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { setPaused } from "../../src/memory/admin.js";
import type { DistillJob, DistillResult } from "../../src/memory/distill.js";
import { compressTraced, distilSpan, inBackground } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { listMemories } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { latestSummary } from "../../src/storage/summaries.js";
import { emptySections } from "../../src/transcript/merge.js";
import { claudeCodeSession, developmentSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

function store() {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const projectId = upsertProject(db, "p", dir).id;
  return { db, projectId, root: dir };
}

const turn = (i: number, text: string): Turn => ({
  id: `t${i}`,
  index: i,
  role: "user",
  kind: "message",
  text,
  tool_calls: [],
  tool_results: [],
});

/** Sections holding one user constraint: what distillation turns into a unit. */
function sections() {
  const x = emptySections();
  x.constraints.push({ text: "Never log access tokens in this service.", turn: "t0" });
  return x;
}

describe("distilSpan", () => {
  const fake: DistillResult = {
    added: 7,
    merged: 0,
    superseded: 0,
    conflicts: 0,
    dropped: 0,
    archived: 0,
    warm: 7,
    cold: 0,
  };
  const cases: {
    name: string;
    distill?: (job: DistillJob) => DistillResult | undefined;
    span: number;
    want: "inline" | "fake" | "queued" | "none";
  }[] = [
    { name: "inline when no background is given", span: 1, want: "inline" },
    { name: "the background's own result when it distilled inline", distill: () => fake, span: 1, want: "fake" },
    { name: "queued turns when the background took the job", distill: () => undefined, span: 2, want: "queued" },
    { name: "nothing queued for an empty span", distill: () => undefined, span: 0, want: "none" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = store();
      const span = [turn(0, "Never log access tokens in this service."), turn(1, "Always run the linter first.")];
      const job = { projectId: s.projectId, sessionId: "s", span: span.slice(0, c.span), sections: sections() };
      const r = distilSpan({ db: s.db, ...(c.distill ? { distill: c.distill } : {}) }, job);
      if (c.want === "inline") {
        expect(r.memories?.added).toBeGreaterThan(0);
        expect(listMemories(s.db, s.projectId).length).toBe(r.memories?.added);
      } else if (c.want === "fake") expect(r).toEqual({ memories: fake });
      else if (c.want === "queued") expect(r).toEqual({ memories_queued: 2 });
      else expect(r).toEqual({});
      if (c.want !== "inline") expect(listMemories(s.db, s.projectId)).toHaveLength(0);
    });
  }
});

describe("inBackground", () => {
  const cases: { name: string; fails: boolean }[] = [
    { name: "hands the job over and returns nothing", fails: false },
    { name: "distils inline, with a warning, when no worker can take the job", fails: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = store();
      const taken: DistillJob[] = [];
      const warnings: string[] = [];
      const distiller = {
        enqueue(job: DistillJob) {
          if (c.fails) throw new Error("no worker");
          taken.push(job);
        },
      };
      const run = inBackground(distiller, s.db, { warn: (m: string) => warnings.push(m) });
      const job = {
        projectId: s.projectId,
        sessionId: "s",
        span: [turn(0, "Never log access tokens in this service.")],
        sections: sections(),
      };
      const r = run(job);
      expect(taken).toHaveLength(c.fails ? 0 : 1);
      expect(r === undefined).toBe(!c.fails);
      expect(warnings.join(" ")).toMatch(c.fails ? /unavailable \(no worker\); distilling inline/ : /^$/);
      expect(listMemories(s.db, s.projectId).length > 0).toBe(c.fails);
    });
  }
});

describe("compressTraced: store and distil", () => {
  const cases: { name: string; paused: boolean; runs: number; stored: boolean; note?: RegExp }[] = [
    { name: "stores the summary and distils the span", paused: false, runs: 1, stored: true },
    { name: "stores nothing while memory is paused", paused: true, runs: 1, stored: false, note: /paused/ },
    { name: "stores nothing more when nothing is new", paused: false, runs: 2, stored: false, note: /Nothing new/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = store();
      const path = join(s.root, "t.jsonl");
      writeFileSync(path, claudeCodeSession(developmentSession()));
      if (c.paused) setPaused(s.db, s.projectId, true);
      let result = compressTraced(s, { transcript_path: path, keep_recent: 0 }).result;
      for (let i = 1; i < c.runs; i++) result = compressTraced(s, { transcript_path: path, keep_recent: 0 }).result;
      expect(result.seq !== undefined).toBe(c.stored);
      expect(result.memories !== undefined).toBe(c.stored);
      if (c.note) expect(result.notes.join(" ")).toMatch(c.note);
      // The first run stored one summary unless paused; a run with nothing new adds none.
      expect(latestSummary(s.db, result.session_id)?.seq).toBe(c.paused ? undefined : 1);
      expect(listMemories(s.db, s.projectId).length > 0).toBe(!c.paused);
      if (c.stored) {
        const row = latestSummary(s.db, result.session_id);
        expect(row?.stats).toMatchObject({ tokens_summarized: result.stats.tokens_before });
        expect(Object.keys(result).slice(-3)).toEqual(["memories", "seq", "probe_list"]);
      } else expect(Object.keys(result).at(-1)).toBe("probe_list");
    });
  }
});
