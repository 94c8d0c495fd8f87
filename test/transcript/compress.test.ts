// compress_context on real transcripts: forced sections, the artifact ledger, probes, merge, incremental reading.
import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { compressContext, compressTraced } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { checkProbes } from "../../src/transcript/compression/probes.js";
import { getSummary } from "../../src/transcript/compression/summaries.js";
import { SECTION_TITLES } from "../../src/transcript/rendering/render.js";
import { claudeCodeSession, developmentSession, longSession, SESSION_FACTS } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";
import { fixture } from "./data.js";

function store() {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const project = upsertProject(db, "test", dir);
  return { db, dir, deps: { db, projectId: project.id, root: dir, home: dir } };
}

/** compress_context's result with the summary as drafted, before re-insertion (what the probes are checked on). */
function drafted(...args: Parameters<typeof compressTraced>) {
  const { result, trace } = compressTraced(...args);
  return { ...result, draft: trace.draft };
}

describe("compress_context", () => {
  const session = (dir: string, rounds: number, files = 6) => {
    const path = join(dir, `session-${rounds}.jsonl`);
    writeFileSync(path, claudeCodeSession(longSession(rounds, files)));
    return path;
  };
  const facts = Object.values(SESSION_FACTS).map((f) => ({
    type: "artifact" as const,
    expect: [f],
    turn: "",
    fact: "",
  }));

  it("writes every forced section, an artifact ledger from the edits, and token accounting", () => {
    const { deps, dir } = store();
    const r = drafted(deps, { transcriptPath: session(dir, 60) });
    for (const title of Object.values(SECTION_TITLES)) expect(r.summary.markdown).toContain(`## ${title}`);
    const files = Object.keys(r.summary.sections.files);
    expect(files.some((f) => f.endsWith(SESSION_FACTS.file))).toBe(true);
    expect(r.summary.sections.files[files.find((f) => f.endsWith(SESSION_FACTS.file))!]![0]!.op).toMatch(
      /^(edited|created|written)/,
    );
    const s = r.stats;
    expect(s.tokens_before).toBeGreaterThan(20_000);
    expect(s.ratio).toBeCloseTo(s.tokens_before / s.tokens_after, 1);
    expect(s.ratio).toBeGreaterThanOrEqual(10);
    expect(s.tokens_total_before).toBeGreaterThan(s.tokens_before);
    expect(s.tokens_total_after).toBeGreaterThan(s.tokens_after);
    expect(s.kept_recent).toBe(5);
    expect(r.markdown).toContain("## Recent Messages (verbatim)");
    expect(s.probe_score).toBeGreaterThanOrEqual(s.probe_score_before);
    expect(s.probe_score).toBe(1);
    // The facts the session established are in the summary itself, before any re-insertion.
    expect(checkProbes(facts, r.draft).score).toBeGreaterThanOrEqual(5 / 6);
  });

  it("gives the same facts compressed in two halves as compressed whole", () => {
    const dir = tmpDir();
    const path = session(dir, 12);
    const whole = drafted(store().deps, { transcriptPath: path });
    const { deps } = store();
    const first = compressContext(
      { ...deps, limitTurns: Math.floor(whole.stats.turns_total / 2) },
      { transcriptPath: path },
    );
    const second = drafted(deps, { transcriptPath: path });
    expect(first.stats.compression).toBe(1);
    expect(second.stats.compression).toBe(2);
    expect(first.stats.turns_summarized + second.stats.turns_summarized).toBe(whole.stats.turns_summarized);
    const a = checkProbes(facts, whole.draft).score;
    const b = checkProbes(facts, second.draft).score;
    expect(Math.abs(a - b)).toBeLessThanOrEqual(1 / 6);
    expect(Object.keys(second.summary.sections.files).length).toBeGreaterThanOrEqual(
      Object.keys(first.summary.sections.files).length,
    );
  });

  it("steers with focus and honours a small budget", () => {
    const { deps, dir } = store();
    const path = join(dir, "focus.jsonl");
    const steps = [
      ...longSession(8),
      { user: "Also move the postgres connection pool settings into config/db.ts." },
      {
        assistant:
          "I decided to keep the postgres pool size and timeout in config/db.ts instead of the env file, because every service reads that module.",
      },
      ...developmentSession(9),
    ];
    writeFileSync(path, claudeCodeSession(steps));
    const r = drafted(deps, { transcriptPath: path, budgetTokens: 600, focus: "postgres" });
    expect(r.stats.tokens_after).toBeLessThan(1400);
    expect(r.draft.toLowerCase()).toContain("postgres");
  });

  it("reads a transcript that is still being written, and later picks up where it stopped", () => {
    const { deps, dir } = store();
    const path = join(dir, "live.jsonl");
    const rec = (uuid: string, type: "user" | "assistant", text: string) =>
      JSON.stringify({
        type,
        uuid,
        sessionId: "live-1",
        isSidechain: false,
        message: { role: type, content: type === "user" ? text : [{ type: "text", text }] },
      });
    const lines: string[] = [];
    for (let i = 0; i < 12; i++) {
      lines.push(rec(`u${i}`, "user", `Step ${i}: please never touch config/prod.yaml while fixing src/mod${i}.ts.`));
      lines.push(rec(`a${i}`, "assistant", `I decided to fix src/mod${i}.ts instead of rewriting it.`));
    }
    writeFileSync(path, `${lines.join("\n")}\n{"type":"user","uuid":"u99","mess`);
    const r1 = compressContext(deps, { transcriptPath: path, keepRecent: 2 });
    expect(r1.session_id).toBe("live-1");
    expect(r1.partial_tail).toBe(true);
    expect(r1.notes.join(" ")).toMatch(/still being written/);
    expect(r1.stats.turns_summarized).toBe(22);
    // The line gets finished and the session goes on.
    appendFileSync(
      path,
      `age":{"role":"user","content":"Now add tests for mod99."},"sessionId":"live-1"}\n${rec("a99", "assistant", "Added tests.")}\n`,
    );
    const r2 = compressContext(deps, { transcriptPath: path, keepRecent: 2 });
    expect(r2.stats.compression).toBe(2);
    expect(r2.stats.turns_summarized).toBe(2);
    expect(r2.summary.sections.constraints.map((c) => c.turn)).toContain("u0");
    const stored = getSummary(deps.db, deps.projectId, "live-1");
    expect(stored.compression).toBe(2);
    expect(stored.markdown).toBe(r2.summary.markdown);
  });

  it("accepts short message arrays and appends them to the session", () => {
    const { deps } = store();
    const r = compressContext(deps, {
      sessionId: "chat",
      keepRecent: 0,
      messages: [
        { role: "user", content: "Use zod instead of yup for validation. Never commit secrets." },
        { role: "assistant", content: "I'll use zod instead of yup because it infers types." },
      ],
    });
    expect(r.summary.sections.constraints[0]?.text).toContain("Use zod instead of yup");
    expect(r.summary.sections.decisions[0]?.text).toContain("zod instead of yup");
    const r2 = compressContext(deps, {
      sessionId: "chat",
      keepRecent: 0,
      messages: [{ role: "user", content: "Always keep Node 20 supported in the CI matrix." }],
    });
    expect(r2.stats.compression).toBe(2);
    expect(r2.summary.sections.constraints.map((c) => c.text)).toEqual([
      "Use zod instead of yup for validation. Never commit secrets.",
      "Always keep Node 20 supported in the CI matrix.",
    ]);
  });

  it("falls back to the newest Claude Code transcript of the project, and says so", () => {
    const { deps, dir } = store();
    const projDir = join(dir, ".claude", "projects", dir.replace(/[/\\.:]/g, "-"));
    mkdirSync(projDir, { recursive: true });
    copyFileSync(fixture("claude-code.jsonl"), join(projDir, "abc.jsonl"));
    const r = compressContext(deps, {});
    expect(r.source.kind).toBe("newest_claude_code");
    expect(r.notes[0]).toMatch(/newest Claude Code transcript/);
  });

  it("explains what is missing when there is nothing to read", () => {
    const { deps } = store();
    expect(() => compressContext(deps, {})).toThrow(/no transcript to compress/);
    expect(() => compressContext(deps, { messages: [] })).toThrow(/messages is empty/);
  });
});
