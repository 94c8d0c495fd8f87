// Distillation: redaction, segmentation, cross-referencing (conflict, merge, supersession), tiers, archive, edges.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { distill, importance, tierOf, writeUnits } from "../../src/memory/distill.js";
import type { UnitDraft } from "../../src/memory/schema.js";
import { classify } from "../../src/memory/segment.js";
import { compressContext } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { listMemories } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { redact } from "../../src/text/redact.js";
import { emptySections } from "../../src/transcript/extraction/merge.js";
import { claudeCodeSession, longSession, SESSION_FACTS } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

function store() {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const project = upsertProject(db, "mem", dir);
  return { db, projectId: project.id, dir };
}

const turn = (id: string, role: Turn["role"], text: string): Turn => ({
  id,
  index: 0,
  role,
  kind: "message",
  text,
  tool_calls: [],
  tool_results: [],
});
const draft = (over: Partial<UnitDraft> & Pick<UnitDraft, "category" | "text">): UnitDraft => ({
  record: {},
  key: over.text.toLowerCase(),
  confidence: 0.6,
  evidence: [{ session: "s", turn: "t1", quote: over.text }],
  files: [],
  ...over,
});

describe("redaction", () => {
  it("removes provider keys, tokens, private keys, JWTs, URL passwords, .env secrets and private spans", () => {
    const text = [
      "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345 and sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX",
      "gh ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ aws AKIAABCDEFGHIJKLMNOP",
      "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "db postgres://admin:hunter2@db.example.com/app",
      "OPENAI_API_KEY=abc123def456",
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
      "say <private>my home address</private> ok",
    ].join("\n");
    const out = redact(text);
    for (const secret of [
      "sk-ant-api03",
      "sk-proj-ABC",
      "ghp_",
      "AKIAABCD",
      "eyJhbGci",
      "hunter2",
      "abc123def456",
      "MIIEow",
      "home address",
    ]) {
      expect(out, secret).not.toContain(secret);
    }
    expect(out).toContain("postgres://admin:[redacted]@db.example.com/app");
    expect(out).toContain("OPENAI_API_KEY=[redacted]");
  });
});

describe("segmentation", () => {
  it("labels user constraints, requests and preferences, agent promises, failures, metrics and learnings", () => {
    const cases: [string, string, string][] = [
      ["user", "Never push to main without a review.", "commitment"],
      ["user", "Make sure the tests still pass.", "commitment"],
      ["user", "add a retry to the fetcher", "commitment"],
      ["user", "I prefer zod over yup.", "preference"],
      ["user", "It crashes with TypeError: x is undefined", "failure"],
      ["user", "thanks, looks good", "background"],
      ["assistant", "I will keep the public API unchanged.", "commitment"],
      ["assistant", "I'll check the file first.", "reasoning"],
      ["user", "can we add unranked as the bottom most rank?", "commitment"],
      ["user", "https://github.com/o/r/issues/476 fix this issue if they're actionable fixes", "commitment"],
      ["user", "/resolve-reviews on https://github.com/o/r/pull/341", "commitment"],
      ["user", "how do I delete the existing db", "background"],
      ["user", "do we need dictation_auto_off.py in the repo", "background"],
      ["user", "FAIL src/undo.layers.test.js > UndoLayers > undo", "failure"],
      ["assistant", "All 42 tests passed in 3.1 s.", "performance"],
      ["assistant", "The root cause is a missing await in save().", "learning"],
      ["assistant", "I decided to use a map instead of a list.", "reasoning"],
    ];
    for (const [role, text, want] of cases) expect(classify(text, role).category, text).toBe(want);
  });
});

describe("cross-referencing and tiers", () => {
  it("flags a contradicting commitment as a conflict, keeping both; the newer wins", () => {
    const { db, projectId } = store();
    writeUnits(
      db,
      projectId,
      "s1",
      [],
      [draft({ category: "commitment", text: "Use tabs for indentation in the python files" })],
    );
    const r = writeUnits(
      db,
      projectId,
      "s2",
      [],
      [draft({ category: "commitment", text: "Do not use tabs for indentation in the python files" })],
    );
    expect(r.conflicts).toBe(1);
    const all = listMemories(db, projectId, { category: "commitment", includeInactive: true });
    expect(all).toHaveLength(2);
    const [newer, older] = all.sort((a, b) => b.id - a.id);
    expect(newer!.status).toBe("active");
    expect(older!.status).toBe("conflict");
    expect(older!.conflicts_with).toBe(newer!.id);
    expect(newer!.conflicts_with).toBe(older!.id);
  });

  it("merges duplicate learnings (evidence concatenated, confidence raised)", () => {
    const { db, projectId } = store();
    writeUnits(
      db,
      projectId,
      "s1",
      [],
      [draft({ category: "learning", text: "The cache must be cleared after a schema change", confidence: 0.5 })],
    );
    const r = writeUnits(
      db,
      projectId,
      "s2",
      [],
      [
        draft({
          category: "learning",
          text: "the cache must be cleared after a schema change!",
          key: "x",
          confidence: 0.5,
          evidence: [{ session: "s2", turn: "t9", quote: "again" }],
        }),
      ],
    );
    expect(r.merged).toBe(1);
    const [m] = listMemories(db, projectId, { category: "learning" });
    expect(m!.confidence).toBeCloseTo(0.75, 5);
    expect(m!.evidence).toHaveLength(2);
  });

  it("supersedes a metric's old value and keeps its history", () => {
    const { db, projectId } = store();
    const metric = (v: number, turn: string) =>
      draft({
        category: "performance",
        text: `tests passed: ${v} passed`,
        key: "tests passed",
        record: { metric: "tests passed", value: v, unit: "passed", timestamp: turn },
      });
    writeUnits(db, projectId, "s1", [], [metric(40, "t1")]);
    const r = writeUnits(db, projectId, "s1", [], [metric(42, "t7")]);
    expect(r.superseded).toBe(1);
    const rows = listMemories(db, projectId, { category: "performance", includeInactive: true });
    const active = rows.find((x) => x.status === "active")!;
    const old = rows.find((x) => x.status === "superseded")!;
    expect(old.superseded_by).toBe(active.id);
    expect((active.record as { history: { value: number }[] }).history.map((h) => h.value)).toEqual([40]);
  });

  it("tiers by importance = recency × category weight × novelty", () => {
    expect(importance("commitment", 0, 1)).toBe(1);
    expect(tierOf(importance("commitment", 0, 1))).toBe("warm");
    expect(tierOf(importance("reasoning", 30, 1))).toBe("cold");
    expect(tierOf(importance("reasoning", 120, 1))).toBe("dropped");
    expect(importance("failure", 30, 1)).toBeCloseTo(0.45, 5);
  });

  it("archives the span's turns redacted, never twice", () => {
    const { db, projectId } = store();
    const span = [
      turn("u1", "user", "my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345, never commit it"),
      turn("a1", "assistant", "Understood."),
    ];
    const empty = { ...emptySections(), constraints: [{ text: span[0]!.text, turn: "u1" }] };
    const r1 = distill(db, projectId, "s1", span, empty);
    expect(r1.archived).toBe(2);
    expect(distill(db, projectId, "s1", span, empty).archived).toBe(0);
    const bytes =
      JSON.stringify(db.prepare("SELECT text FROM raw_turns").all()) + JSON.stringify(listMemories(db, projectId));
    expect(bytes).not.toContain("sk-ant-api03");
    expect(bytes).toContain("[redacted anthropic key]");
  });
});

describe("distillation through compress_context", () => {
  it("stores typed units from a working session, cites files, and merges when it is compressed again", () => {
    const { db, projectId, dir } = store();
    const deps = { db, projectId, root: dir };
    const path = join(dir, "session.jsonl");
    const steps = longSession(4);
    writeFileSync(path, claudeCodeSession(steps));
    const first = compressContext({ ...deps, limitTurns: 40 }, { transcriptPath: path });
    expect(first.memories!.added).toBeGreaterThan(2);
    const second = compressContext(deps, { transcriptPath: path });
    expect(second.memories!.added + second.memories!.merged).toBeGreaterThan(0);
    const all = listMemories(db, projectId, { limit: 500 });
    const cats = new Set(all.map((m) => m.category));
    for (const c of ["commitment", "failure"]) expect(cats.has(c), c).toBe(true);
    const commitments = listMemories(db, projectId, { category: "commitment", limit: 50 }).map((m) => m.text);
    expect(commitments.some((t) => t.includes(SESSION_FACTS.constraint))).toBe(true);
    const failures = listMemories(db, projectId, { category: "failure", limit: 50 }).map((m) => m.text);
    expect(failures.some((t) => t.includes("Cannot read properties of undefined"))).toBe(true);
    // The same user instruction in every round is one unit with more evidence, not four.
    expect(commitments.filter((t) => t.includes(SESSION_FACTS.constraint)).length).toBeLessThan(4);
  });
});
