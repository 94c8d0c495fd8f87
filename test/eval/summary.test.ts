// `eval summary`: the raw edit-marker table per format, the matching rules, the scoring of one summary, and the
// whole command over a folder of fixture transcripts (JSON shape and the labelled mode).
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { evalSummaryCommand } from "../../bench/commands.js";
import { loadLabelledFailures, sameFailureLine } from "../../bench/summary/labelled.js";
import { failureMatches, scoreSession, sectionLines } from "../../bench/summary/run.js";
import { samePath, sourceFormat, truthConstraints, truthEdits, truthFailures } from "../../bench/summary/truth.js";
import type { Turn } from "../../src/conversation/schema.js";
import { repoRoot } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const paths = (raw: string, format: string) =>
  truthEdits(raw, format)
    .map((e) => `${e.op} ${e.path}`)
    .sort();

describe("edit markers", () => {
  it("reads each format's own edit markers and never a path in prose or a read", () => {
    const claude = [
      {
        type: "assistant",
        sessionId: "s",
        message: { content: [{ type: "tool_use", id: "a", name: "Edit", input: { file_path: "/r/src/a.ts" } }] },
      },
      {
        type: "assistant",
        sessionId: "s",
        message: { content: [{ type: "tool_use", id: "b", name: "Write", input: { file_path: "/r/new.ts" } }] },
      },
      {
        type: "assistant",
        sessionId: "s",
        message: { content: [{ type: "tool_use", id: "c", name: "Edit", input: { file_path: "/r/failed.ts" } }] },
      },
      {
        type: "user",
        sessionId: "s",
        message: { content: [{ type: "tool_result", tool_use_id: "c", is_error: true, content: "no" }] },
      },
      {
        type: "assistant",
        sessionId: "s",
        message: { content: [{ type: "tool_use", id: "d", name: "Read", input: { file_path: "/r/read.ts" } }] },
      },
      { type: "user", sessionId: "s", message: { content: "please look at src/mentioned.ts" } },
    ]
      .map((r) => JSON.stringify(r))
      .join("\n");
    expect(sourceFormat(claude, "x.jsonl")).toBe("claude-code-jsonl");
    expect(paths(claude, "claude-code-jsonl")).toEqual(["created /r/new.ts", "modified /r/src/a.ts"]);

    const codex =
      '{"type":"response_item","payload":{"type":"custom_tool_call","input":"*** Begin Patch\\n*** Update File: src/x.rs\\n*** Add File: src/y.rs\\n*** End Patch"}}';
    expect(paths(codex, sourceFormat(codex, "r.jsonl"))).toEqual(["created src/y.rs", "modified src/x.rs"]);

    const cursor =
      "<!-- Cursor IDE Session 0123abcd-1 (x) -->\n<details><summary>Tool use: **edit_file_v2** • Edit file: /u/p/docs/a.md</summary>\n</details>\nRead file: /u/p/b.md\n";
    expect(paths(cursor, sourceFormat(cursor, "c.md"))).toEqual(["modified /u/p/docs/a.md"]);

    const copilot =
      '<!-- VS Code Copilot IDE Session 7a9002d1-05 (x) -->\n<tool-use data-tool-type="generic" data-tool-name="replace_string_in_file"><details>\n<summary>Tool use: **replace_string_in_file**</summary>\n\n**Input:**\n\n- filePath: `c:\\Dev\\mod\\A.cs`\n';
    expect(paths(copilot, sourceFormat(copilot, "p.md"))).toEqual(["modified c:\\Dev\\mod\\A.cs"]);

    const aider =
      "# aider chat started at 2024-01-01 10:00:00\n\n#### fix it\n> Applied edit to src/app.py  \n> cat src/other.py\n";
    expect(paths(aider, sourceFormat(aider, "a.md"))).toEqual(["modified src/app.py"]);

    const cline =
      "**User:**\n\n<task>\nfix\n</task>\n\n[write_to_file for 'bff/a.ts'] Result:\nThe content was successfully saved to bff/a.ts.\n\n[write_to_file for 'bff/b.ts'] Result:\nThe user denied this operation.\n";
    expect(paths(cline, sourceFormat(cline, "k.md"))).toEqual(["modified bff/a.ts"]);

    const exported =
      "<!-- Claude Code Session 98c18be7-b4 (x) -->\n```text\nThe file /u/t/db.py has been updated successfully.\n```\n```text\nFile created successfully at: /u/t/req.txt\n```\n";
    expect(paths(exported, sourceFormat(exported, "e.md"))).toEqual(["created /u/t/req.txt", "modified /u/t/db.py"]);

    const traj = JSON.stringify({
      trajectory: [
        { action: "open src/a.py" },
        { action: "edit 1:2\nx\nend_of_edit" },
        { action: "create b.py" },
        { action: "cat c.py" },
      ],
      info: { submission: "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n" },
    });
    expect(paths(traj, sourceFormat(traj, "t.traj"))).toEqual(["created b.py", "modified src/a.py"]);

    const antigravity = JSON.stringify({
      step_index: 1,
      type: "CODE_ACTION",
      content: "The following changes were made by the replace_file_content tool to: /u/k/src/C.tsx. If relevant",
    });
    expect(paths(antigravity, sourceFormat(antigravity, "g.jsonl"))).toEqual(["modified /u/k/src/C.tsx"]);
  });

  it("reads shell writes only from recorded commands, and drops calls that failed or were refused", () => {
    const shell = (cmd: string, out = "ok") =>
      `<tool-use data-tool-type="shell" data-tool-name="exec_command"><details>\n<summary>Tool use: **exec_command**</summary>\n\`\`\`bash\n${cmd}\n\`\`\`\n\`\`\`\n${out}\n\`\`\`\n</details></tool-use>\n`;
    const codex =
      "<!-- Codex CLI Session 0123abcd-9 (x) -->\n" +
      shell("cat > LICENSE <<'EOF'\nMIT\nEOF") +
      shell("cp .env.example .env && mv old.py new.py") +
      // A script written by a heredoc: the heredocs inside it write nothing yet.
      shell("cat > scripts/release.sh <<'EOF'\ncat > \"$DIR/VERSION.txt\" <<TXT\n1\nTXT\nEOF") +
      shell("cat > refused.py <<'EOF'\nx\nEOF", "The user doesn't want to proceed with this tool use.") +
      // A plan written to a file quotes a heredoc: content, not a command.
      '<tool-use data-tool-type="write" data-tool-name="Write"><details>\n```bash\ncat > web/.env.local.example <<\'EOF\'\nX=1\nEOF\n```\n</details></tool-use>\n' +
      '<tool-use data-tool-type="write" data-tool-name="apply_patch"><details>\n**Update: `src/a.css`**\n```\napply_patch verification failed: Failed to find expected lines in src/a.css\n```\n</details></tool-use>\n';
    expect(paths(codex, sourceFormat(codex, "c.md"))).toEqual([
      "created .env",
      "created new.py",
      "modified LICENSE",
      "modified scripts/release.sh",
    ]);

    const aider = "# aider chat started at 2024-01-01 10:00:00\n\n> Creating empty file /w/repo/notes  \n";
    expect(paths(aider, "aider")).toEqual(["created /w/repo/notes"]);

    const sub = JSON.stringify({
      trajectory: [],
      info: { submission: "diff --git a/my dir/x y.py b/my dir/x y.py\n--- a/my dir/x y.py\n+++ b/my dir/x y.py\n" },
    });
    expect(paths(sub, sourceFormat(sub, "t.traj"))).toEqual(["modified my dir/x y.py"]);
  });

  it("a Cursor diff block edits the file its sentence names, a new file the script run next, else the file read", () => {
    const cursor =
      "<!-- Generated by SpecStory -->\n\n_**User**_\n\nfix\n\n---\n\n_**Assistant**_\n\nRead file: /w/a.py\n\n---\n\n" +
      "Now let's fix the `main.py` file:\n\n```diff\n  x = 1\n+ y = 2\n```\n\nA helper:\n\n```diff\n  z = 1\n+ w = 2\n```\n\n" +
      "Let's create a test:\n\n```diff\n- \n+ import os\n+ print(1)\n```\n\n```bash\ncd /w && python -u check.py\n```\n";
    expect(paths(cursor, "specstory-cursor")).toEqual(["created check.py", "modified /w/a.py", "modified main.py"]);
  });

  it("matches paths by segments, not by substrings", () => {
    expect(samePath("src/a.ts", "/home/u/repo/src/a.ts")).toBe(true);
    expect(samePath("C:\\r\\src\\A.ts", "src/a.ts")).toBe(true);
    expect(samePath("a.ts", "/r/src/data.ts")).toBe(false);
    expect(samePath("meta.get", "/r/meta.py")).toBe(false);
  });
});

const turn = (id: string, role: Turn["role"], text: string, results: Turn["tool_results"] = []): Turn => ({
  id,
  index: 0,
  role,
  kind: "message",
  text,
  tool_calls: [],
  tool_results: results,
});

describe("scoring a summary", () => {
  const turns = [
    turn("t1", "user", "Never change the public API. Fix the parser.\n[Request interrupted by user]"),
    turn("t2", "tool", "", [
      {
        output: "FAILED test/x.test.ts\nTypeError: Cannot read properties of undefined (reading 'kind')",
        is_error: false,
      },
    ]),
    turn("t3", "tool", "", [{ output: "  12 | const x = err;\nall good", is_error: false }]),
  ];

  it("finds failures in tool results and constraints in what the human typed", () => {
    expect(truthFailures(turns).map((f) => f.text)).toEqual([
      "TypeError: Cannot read properties of undefined (reading 'kind')",
    ]);
    expect(truthConstraints(turns).map((c) => c.text)).toEqual(["Never change the public API."]);
    expect(
      failureMatches("TypeError: Cannot read properties of undefined (reading 'kind')", truthFailures(turns)[0]!),
    ).toBe(true);
    expect(failureMatches("12 | const x = err;", truthFailures(turns)[0]!)).toBe(false);
  });

  it("reads compiler diagnostics, listed lint errors and quoted errors as failures; a declined call is none", () => {
    const al =
      "c:\\Users\\dev\\src\\Pag51003.EconomicCountryMapping.al(71,33): error AL0132: 'Record' does not contain";
    const kinds = [
      turn("t1", "user", `${al}\nc:\\Users\\dev\\src\\Cod51000.al(40,42): error AL0856: Statements cannot start`),
      turn("t2", "user", 'Getting this error : "The record in table Economic Integration Log already exists."'),
      turn("t3", "user", "I can't find the customers in any page? Which will they be created in?"),
      turn("t4", "user", "Unknown skill: export"),
      turn("t5", "tool", "", [
        {
          output:
            "src/controllers/holdingController.ts:20:8 - error TS2315: Type 'AuthenticatedRequest' is not generic.",
          is_error: false,
        },
        {
          output:
            "Your proposed edit has introduced new syntax error(s).\n\nERRORS:\n- E999 SyntaxError: unmatched ']'",
          is_error: false,
        },
        {
          output: "The user doesn't want to proceed with this tool use. The tool use was rejected.",
          is_error: true,
        },
        {
          output: "The user denied this operation and provided the following feedback:\nRun it later.",
          is_error: true,
        },
      ]),
    ];
    expect(truthFailures(kinds).map((f) => `${f.turn} ${f.text}`)).toEqual([
      "t4 Unknown skill: export",
      "t5 src/controllers/holdingController.ts:20:8 - error TS2315: Type 'AuthenticatedRequest' is not generic.",
      "t5 - E999 SyntaxError: unmatched ']'",
      `t1 ${al}`,
      "t1 c:\\Users\\dev\\src\\Cod51000.al(40,42): error AL0856: Statements cannot start",
      't2 Getting this error : "The record in table Economic Integration Log already exists."',
    ]);
  });

  it("scores each section's lines, naming false positives and misses", () => {
    const raw = JSON.stringify({
      type: "assistant",
      sessionId: "s",
      message: { content: [{ type: "tool_use", id: "a", name: "Edit", input: { file_path: "/r/src/parser.ts" } }] },
    });
    const md = [
      "## User Constraints",
      '- "Never change the public API." (t1)',
      '- "Unknown skill: export" (t9)',
      "## Files Modified",
      "- `src/parser.ts` — modified (t4)",
      "- `meta.get` — modified (t5)",
      "- _(2 more kept in the store; `get_summary` with `full: true` lists them)_",
      "## Failures",
      "- [test failure] TypeError: Cannot read properties of undefined (reading 'kind') (t2) → fixed in t5",
      "- [tool error] 12 | const x = err; (t3)",
    ].join("\n");
    expect(sectionLines(md, "Files Modified")).toHaveLength(2);
    const s = scoreSession("f.jsonl", "claude-code-jsonl", md, raw, turns);
    expect(s.ledger).toMatchObject({
      precision: 0.5,
      recall: 1,
      predicted: 2,
      truth: 1,
      false_positives: ["meta.get"],
    });
    expect(s.failures).toMatchObject({ precision: 0.5, recall: 1, false_positives: ["12 | const x = err;"] });
    expect(s.constraints).toMatchObject({ precision: 0.5, recall: 1, false_positives: ["Unknown skill: export"] });
  });

  it("reads the committed hand-labelled sample: 50 + 60 summary lines, 20 tool-result lines, 20 lines of error kinds", () => {
    const set = loadLabelledFailures(join(repoRoot, "test", "fixtures", "summary", "failures-labelled.jsonl"));
    expect(set.filter((x) => x.source === "summary")).toHaveLength(50);
    expect(set.filter((x) => x.source === "tool-result")).toHaveLength(20);
    expect(set.filter((x) => x.source === "error-kind")).toHaveLength(20);
    const stratified = set.filter((x) => x.source === "summary-stratified");
    expect(stratified).toHaveLength(60);
    // Drawn by format: every format of the evaluation set has at least two lines.
    expect(new Set(stratified.map((x) => x.file)).size).toBeGreaterThanOrEqual(12);
    expect(set.some((x) => x.label) && set.some((x) => !x.label)).toBe(true);
  });

  it("takes a labelled line as emitted when their tokens agree", () => {
    expect(
      sameFailureLine(
        "TypeError: Cannot read properties of undefined (reading 'kind')",
        "TypeError: Cannot read properties of undefined",
      ),
    ).toBe(true);
    expect(
      sameFailureLine("npm WARN deprecated inflight@1.0.6", "TypeError: Cannot read properties of undefined"),
    ).toBe(false);
    expect(sameFailureLine("router.tsx failed to build with a long message about routes", "router.tsx")).toBe(false);
  });
});

describe("eval summary over a folder", () => {
  it("prints the JSON shape per format and per session, and scores a labelled set", async () => {
    const dir = tmpDir("memcards-evalsum-");
    for (const f of ["claude-code.jsonl", "aider.chat.history.md", "swe-agent.traj"])
      copyFileSync(join(repoRoot, "test", "fixtures", "transcripts", f), join(dir, f));
    const r = (await evalSummaryCommand({ transcripts: dir })).data as {
      overall: Record<string, { precision: number | null; recall: number | null }>;
      by_format: Record<string, unknown>;
      sessions: { file: string; format: string; ledger: { truth: number; predicted: number } }[];
    };
    expect(Object.keys(r.overall)).toEqual(["ledger", "failures", "constraints"]);
    expect(Object.keys(r.by_format).sort()).toEqual(["aider", "claude-code-jsonl", "swe-agent"]);
    expect(r.sessions.map((s) => s.file)).toEqual(["aider.chat.history.md", "claude-code.jsonl", "swe-agent.traj"]);
    const swe = r.sessions.find((s) => s.format === "swe-agent")!;
    expect(swe.ledger.truth).toBeGreaterThan(0);
    expect(r.overall.ledger!.recall).toBeGreaterThan(0);

    const labelled = join(dir, "labelled.jsonl");
    writeFileSync(
      labelled,
      [
        { file: "swe-agent.traj", turn: "x", text: "SyntaxError: invalid syntax", label: true, why: "the run failed" },
        {
          file: "swe-agent.traj",
          turn: "x",
          text: "completely unrelated words here",
          label: false,
          why: "not emitted",
        },
      ]
        .map((x) => JSON.stringify(x))
        .join("\n"),
    );
    const l = (await evalSummaryCommand({ transcripts: dir, labelled })).data as {
      labelled: number;
      emitted: number;
      by_source: Record<string, { labelled: number }>;
    };
    expect(l.labelled).toBe(2);
    expect(l.by_source).toEqual({ unspecified: expect.objectContaining({ labelled: 2 }) });
    expect(l.emitted).toBeLessThanOrEqual(1);
  }, 60_000);
});
