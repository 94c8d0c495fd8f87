// The session's steps after compression, each with a table of cases: store the summary, distil the span (inline,
// in the background, or inline when the background cannot take it), and when neither happens.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { setPaused } from "../../src/memory/admin.js";
import type { DistillResult } from "../../src/memory/distill.js";
import { queuedDistillations, queueDistillation, runDistillJob } from "../../src/memory/distill-queue.js";
import { compressTraced, inBackground, resumeDistillation } from "../../src/session/compress.js";
import { forget } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { listMemories } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { latestSummary } from "../../src/storage/summaries.js";
import { emptySections } from "../../src/transcript/extraction/merge.js";
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

describe("compressTraced: inline, in the background, or inline when the background cannot", () => {
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
    distill?: (jobId: number) => DistillResult | undefined;
    want: "inline" | "fake" | "queued";
  }[] = [
    { name: "inline when no background is given", want: "inline" },
    { name: "the background's own result when it distilled inline", distill: () => fake, want: "fake" },
    { name: "queued turns when the background took the job", distill: () => undefined, want: "queued" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = store();
      const path = join(s.root, "t.jsonl");
      writeFileSync(path, claudeCodeSession(developmentSession()));
      const taken: number[] = [];
      const distill = c.distill;
      const deps = distill
        ? {
            ...s,
            distill: (id: number) => {
              taken.push(id);
              return distill(id);
            },
          }
        : s;
      const r = compressTraced(deps, { transcriptPath: path, keepRecent: 0 }).result;
      if (c.want === "inline") {
        expect(r.memories?.added).toBeGreaterThan(0);
        expect(listMemories(s.db, s.projectId).length).toBe(r.memories?.added);
        expect(queuedDistillations(s.db, s.projectId)).toEqual([]);
        return;
      }
      if (c.want === "fake") expect(r.memories).toEqual(fake);
      else expect(r.memories_queued).toBe(r.span.length);
      // The job was queued (durably) with the summary and handed over by its id; nothing was distilled here.
      expect(queuedDistillations(s.db, s.projectId)).toEqual(taken);
      expect(listMemories(s.db, s.projectId)).toHaveLength(0);
      // Running the queued job writes the units once; a second run finds it done.
      expect(runDistillJob(s.db, taken[0]!)?.added).toBeGreaterThan(0);
      expect(runDistillJob(s.db, taken[0]!)).toBeUndefined();
      expect(queuedDistillations(s.db, s.projectId)).toEqual([]);
    });
  }
});

describe("inBackground", () => {
  const cases: { name: string; fails: boolean }[] = [
    { name: "hands the job over and returns nothing", fails: false },
    { name: "runs the queued job inline, with a warning, when no worker can take it", fails: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = store();
      const taken: number[] = [];
      const warnings: string[] = [];
      const distiller = {
        enqueue(jobId: number) {
          if (c.fails) throw new Error("no worker");
          taken.push(jobId);
        },
      };
      const run = inBackground(distiller, s.db, { warn: (m: string) => warnings.push(m) });
      const job = {
        projectId: s.projectId,
        sessionId: "s",
        span: [turn(0, "Never log access tokens in this service.")],
        sections: sections(),
      };
      const id = queueDistillation(s.db, job);
      const r = run(id);
      expect(taken).toHaveLength(c.fails ? 0 : 1);
      expect(r === undefined).toBe(!c.fails);
      expect(warnings.join(" ")).toMatch(c.fails ? /unavailable \(no worker\); distilling inline/ : /^$/);
      expect(listMemories(s.db, s.projectId).length > 0).toBe(c.fails);
      expect(queuedDistillations(s.db, s.projectId)).toEqual(c.fails ? [] : [id]);
    });
  }
});

describe("forget and the queue", () => {
  it("drops a forgotten session's queued distillation, and only that session's", () => {
    const s = store();
    const job = (sessionId: string) => ({
      projectId: s.projectId,
      sessionId,
      span: [turn(0, "Never log access tokens in this service.")],
      sections: sections(),
    });
    queueDistillation(s.db, job("gone"));
    const kept = queueDistillation(s.db, job("kept"));
    forget(s, { sessionId: "gone" });
    expect(queuedDistillations(s.db, s.projectId)).toEqual([kept]);
    forget(s, { all: true });
    expect(queuedDistillations(s.db, s.projectId)).toEqual([]);
  });
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
      let result = compressTraced(s, { transcriptPath: path, keepRecent: 0 }).result;
      for (let i = 1; i < c.runs; i++) result = compressTraced(s, { transcriptPath: path, keepRecent: 0 }).result;
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

describe("a queued distillation while memory is paused", () => {
  it("stays queued and writes nothing until memory is resumed", () => {
    const s = store();
    const path = join(s.root, "t.jsonl");
    writeFileSync(path, claudeCodeSession(developmentSession()));
    // The background took the job and the process stopped before running it.
    compressTraced({ ...s, distill: () => undefined }, { transcriptPath: path, keepRecent: 0 });
    const queued = queuedDistillations(s.db, s.projectId);
    expect(queued.length).toBe(1);
    setPaused(s.db, s.projectId, true);
    expect(runDistillJob(s.db, queued[0]!)).toBeUndefined();
    expect(resumeDistillation(s)).toBe(1);
    expect(listMemories(s.db, s.projectId)).toEqual([]);
    expect(queuedDistillations(s.db, s.projectId)).toEqual(queued);
    setPaused(s.db, s.projectId, false);
    expect(resumeDistillation(s)).toBe(1);
    expect(listMemories(s.db, s.projectId).length).toBeGreaterThan(0);
    expect(queuedDistillations(s.db, s.projectId)).toEqual([]);
  });
});
