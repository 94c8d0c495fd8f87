// The cross-session evaluation's question generator and its BM25 baseline.
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { filesEdited, normalizeForMatch, questionsFor } from "../../bench/crosssession/questions.js";
import { Bm25, pack, runCrossSession } from "../../bench/crosssession/run.js";
import type { Turn } from "../../src/conversation/schema.js";
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { tmpDir } from "../helpers/tmp.js";

let n = 0;
const turn = (role: Turn["role"], text: string, over: Partial<Turn> = {}): Turn => ({
  id: `t${n}`,
  index: n++,
  role,
  kind: "message",
  text,
  tool_calls: [],
  tool_results: [],
  ...over,
});

describe("questions derived from earlier sessions", () => {
  const turns: Turn[] = [
    turn("user", "Make the upload client retry on timeouts please. Never touch the generated files in src/gen."),
    turn("assistant", "I decided to use exponential backoff instead of a fixed delay for the retries.", {
      tool_calls: [{ id: "c1", name: "Edit", input: { file_path: "/repo/src/net/retry.ts", old_string: "a" } }],
    }),
    turn("user", "", {
      tool_results: [
        {
          call_id: "c1",
          output: [
            "  63\t  res.end(JSON.stringify({ error: 'Not found' }));",
            "TypeError: Cannot read properties of undefined (reading 'retries')",
          ].join("\n"),
          is_error: false,
        },
      ],
    }),
  ];
  const qs = questionsFor([{ id: "s1", turns, cwd: "/repo" }]);
  const of = (k: string) => qs.filter((q) => q.kind === k);

  it("asks which file a request changed, answered by its project-relative path", () => {
    expect(of("file")).toEqual([
      expect.objectContaining({
        question: "Which file was changed to Make the upload client retry on timeouts please?",
        answer: "src/net/retry.ts",
      }),
    ]);
  });
  it("takes the error line a tool printed, never a source line that mentions an error", () => {
    expect(of("error").map((q) => q.answer)).toEqual([
      "TypeError: Cannot read properties of undefined (reading 'retries')",
    ]);
    expect(of("error")[0]!.question).toContain("TypeError");
  });
  it("takes a user's firm sentence as a rule and an agent's decision sentence", () => {
    expect(of("rule").map((q) => q.answer)).toEqual(["Never touch the generated files in src/gen."]);
    expect(of("decision").map((q) => q.answer)).toEqual([
      "I decided to use exponential backoff instead of a fixed delay for the retries.",
    ]);
  });
  it("lists the files a session edited, relative to its working directory", () => {
    expect([...filesEdited({ turns, cwd: "/repo" })]).toEqual(["src/net/retry.ts"]);
  });
  it("reads aider's own edit lines", () => {
    const t = parseTranscriptFile(join(import.meta.dirname, "../fixtures/transcripts/aider.chat.history.md"));
    const files = questionsFor([{ id: "a", turns: t.turns }]).filter((q) => q.kind === "file");
    expect(files.map((q) => q.answer)).toContain(".gitignore");
  });
  it("shares no extraction code with distillation", () => {
    const src = readFileSync(join(import.meta.dirname, "../../bench/crosssession/questions.ts"), "utf8");
    const imports = [...src.matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
    expect(imports.every((i) => i === "../../src/conversation/schema.js")).toBe(true);
  });
});

describe("the baselines' plumbing", () => {
  it("ranks by textbook BM25: a rare term outweighs a common one, a short document a long one", () => {
    const bm = new Bm25(["alpha beta", "alpha gamma", `alpha ${"filler ".repeat(50)}beta`, "delta"]);
    expect(bm.rank("beta", 10)).toEqual([0, 2]);
    expect(bm.rank("alpha gamma", 1)).toEqual([1]);
  });
  it("cuts what a system returns to ten snippets and the token budget", () => {
    const out = pack(
      Array.from({ length: 20 }, (_, i) => `snippet ${i} ${"word ".repeat(300)}`),
      2000,
    );
    expect(out.length).toBeLessThanOrEqual(10);
    expect(out.join("").length).toBeLessThan(20 * 1600);
  });
  it("compares answers without case, spacing or backticks", () => {
    expect(normalizeForMatch("Edit  `src/A.ts`\n now")).toBe("edit src/a.ts now");
  });
});

describe("rule questions", () => {
  it("never come from code a person pasted without a fence", () => {
    const t: Turn[] = [
      turn(
        "user",
        'Check these:\nassert lo != hi, "endpoints must straddle the boundary"\nNever round the phase before unwrapping.',
      ),
    ];
    expect(
      questionsFor([{ id: "s", turns: t }])
        .filter((q) => q.kind === "rule")
        .map((q) => q.answer),
    ).toEqual(["Never round the phase before unwrapping."]);
  });
});

describe("the cross-session run", () => {
  it("asks every system each question of a two-session project", () => {
    const dir = tmpDir();
    const fixtures = join(import.meta.dirname, "..", "fixtures", "transcripts");
    copyFileSync(join(fixtures, "claude-code.jsonl"), join(dir, "proj-1.jsonl"));
    copyFileSync(join(fixtures, "claude-code-2.1.328.jsonl"), join(dir, "proj-2.jsonl"));
    const r = runCrossSession({ dir, workDir: tmpDir() });
    expect(r.projects.map((p) => p.name)).toEqual(["proj"]);
    expect(r.questions).toBeGreaterThan(0);
    expect(r.overall.search.n).toBe(r.questions);
    expect(r.overall.search_raw.n).toBe(r.questions);
  });
});
