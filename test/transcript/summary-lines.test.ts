// Lines of the summary page in the shapes real sessions have: an error a later clean run settled is history on one
// line and never a blocker, an error hit after the last change stays open on a line of its own, an error the work
// moved past is not open, decisions are choices (not narration), and the recent messages keep words, not code or
// per-call tool lines, within the budget.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { compressContext } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { renderTail, tidyMessage } from "../../src/transcript/compression/compress.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { renderSections } from "../../src/transcript/rendering/render.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

const sectionOf = (md: string, title: string): string => md.split(`## ${title}\n`)[1]?.split("\n## ")[0] ?? "";

function summarize(steps: Step[]) {
  const t = parseText(claudeCodeSession(steps), "claude-code-jsonl");
  const s = extractSections(t.turns, { cwd: t.cwd });
  return { s, md: renderSections(s, 50_000).markdown, turns: t.turns };
}

const failingTest = {
  command: "npm test",
  output:
    "FAIL src/a.test.ts\nTypeError: Cannot read properties of undefined (reading 'id')\nTests: 1 failed, 3 passed",
  error: true,
};

describe("Failures and Blockers from events", () => {
  it("an error a later clean run settled is one history line, marked resolved, and never a blocker", () => {
    const { s, md } = summarize([
      { user: "Fix the failing test." },
      { bash: failingTest },
      { edit: { file: "/repo/src/a.ts", old: "x.id", new: "x?.id" } },
      { bash: { command: "cd /repo && npm test 2>&1 | tail -5", output: "Tests: 4 passed" } },
    ]);
    const failures = sectionOf(md, "Failures").split("\n").filter(Boolean);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^- resolved by a later clean run \(\d+\): /);
    expect(failures[0]).toContain("TypeError: Cannot read properties of undefined (reading 'id')");
    expect(s.failures.every((f) => !f.open)).toBe(true);
    expect(sectionOf(md, "Blockers / Open Questions")).not.toContain("Cannot read properties");
  });

  it("an error hit after the last change stays open: a line of its own and a blocker", () => {
    const { s, md } = summarize([
      { user: "Make the export endpoint pass its tests." },
      { edit: { file: "/repo/src/export.ts", old: "a", new: "b" } },
      { bash: failingTest },
    ]);
    const f = s.failures.find((x) => x.text.includes("(reading 'id')"))!;
    expect(f.open).toBe(true);
    expect(sectionOf(md, "Failures")).toMatch(/^- \[\w[\w -]*\] TypeError: Cannot read properties/m);
    expect(sectionOf(md, "Blockers / Open Questions")).toContain("unresolved: TypeError: Cannot read properties");
  });

  it("an error followed by an edit is an attempted fix, not an open blocker; one before a later request is behind", () => {
    const fixed = summarize([
      { user: "Fix the failing test." },
      { bash: failingTest },
      { edit: { file: "/repo/src/a.ts", old: "x", new: "y" } },
    ]);
    expect(fixed.s.failures.find((x) => x.text.includes("(reading 'id')"))!.open).toBe(false);
    expect(sectionOf(fixed.md, "Blockers / Open Questions")).not.toContain("Cannot read properties");

    const behind = summarize([
      { user: "Fix the failing test." },
      { bash: failingTest },
      { user: "Leave that for now and rename the export module to report." },
      { assistant: "Renaming the module now." },
    ]);
    expect(behind.s.failures.every((f) => !f.open)).toBe(true);
    expect(sectionOf(behind.md, "Failures")).toMatch(/^- hit before later work and not seen since \(\d+\): /m);
    expect(sectionOf(behind.md, "Blockers / Open Questions")).not.toContain("unresolved");
  });

  it("one error seen on several runs is one line with its count", () => {
    const { md } = summarize([
      { user: "Make the tests pass." },
      { edit: { file: "/repo/src/a.ts", old: "a", new: "b" } },
      { bash: failingTest },
      { bash: failingTest },
      { bash: failingTest },
    ]);
    const lines = sectionOf(md, "Failures")
      .split("\n")
      .filter((l) => l.includes("(reading 'id')"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/×3/);
  });
});

describe("Decisions Made", () => {
  it("keeps a commitment the agent carried out and a choice with its reason, not narration or a diagnosis", () => {
    const { s } = summarize([
      { user: "The server hangs on start; make logging work again." },
      { assistant: "The problem is in this part:" },
      { assistant: "The issue is that the logger is never flushed when the process exits." },
      { assistant: "Let me look at Program.cs first." },
      {
        edit: { file: "/repo/Program.cs", old: "app.Run();", new: "try { app.Run(); } finally { Log.Shutdown(); }" },
        say: "I'll wrap the startup in a try/finally block so the logger is always shut down.",
      },
      { assistant: "I'll rename every logger field in the project to match the new style guide." },
      { user: "ok thanks" },
    ]);
    const d = s.decisions.map((f) => f.text);
    expect(d).toContain("I'll wrap the startup in a try/finally block so the logger is always shut down.");
    expect(d.join("\n")).not.toMatch(/The problem is in this part|The issue is that|Let me look/);
    // Said but never carried out (no edit followed before the person spoke again), and no reason given.
    expect(d.join("\n")).not.toContain("rename every logger field");
  });

  it("records the person's pick when they answer the agent's question", () => {
    const { s } = summarize([
      { user: "Add retries to the HTTP client." },
      { assistant: "Should the retries use exponential backoff or a fixed delay of one second?" },
      { user: "exponential backoff" },
    ]);
    expect(s.decisions.map((f) => f.text).join("\n")).toMatch(/the person chose "exponential backoff"/);
  });

  it("records a short reply that names one of the options the agent set out, not one that names none", () => {
    const offer = [
      "Use **MIT** if you want maximum adoption.",
      "If you want protection against repackaging, use **AGPL-3.0** instead.",
    ].join("\n\n");
    const picked = summarize([{ user: "what license should we add?" }, { assistant: offer }, { user: "use MIT" }]);
    expect(picked.s.decisions.map((f) => f.text)).toContain('the person chose "use MIT" of MIT, AGPL-3.0');
    const other = summarize([{ user: "what license should we add?" }, { assistant: offer }, { user: "thanks" }]);
    expect(other.s.decisions.map((f) => f.text).join("\n")).not.toContain("the person chose");
  });
});

describe("Recent messages", () => {
  it("tidies a message: export headers and blank lines out, long code a note, short code kept", () => {
    const text = [
      "_**Agent (claude-opus-4-7 2026-05-21 10:28:12Z)**_",
      "",
      "Fixed the route stacking in App.tsx.",
      "",
      "```tsx",
      ...Array.from({ length: 12 }, (_, i) => `const line${i} = ${i};`),
      "```",
      "Run it with:",
      "```bash",
      "npm run dev",
      "```",
      "backend/app.py",
      "<source>",
      ...Array.from({ length: 8 }, (_, i) => `x${i} = ${i}`),
      "</source>",
    ].join("\n");
    const tidy = tidyMessage(text);
    expect(tidy).not.toContain("_**Agent");
    expect(tidy).not.toMatch(/\n\s*\n/);
    expect(tidy).toContain("[12 lines of code]");
    expect(tidy).toContain("backend/app.py [8 lines of code]");
    expect(tidy).toContain("npm run dev");
    expect(tidy).not.toContain("const line3");
    expect(tidy).toContain("Fixed the route stacking in App.tsx.");
  });

  it("a heading or a label opens the line it heads, and a table's rule row goes", () => {
    const text = [
      "Pushed.",
      "",
      "### Final state",
      "- **Branch** `main` @ `77e9977`",
      "**Validation:**",
      "- `npm test` passed",
      "| # | Bug | Fix commit |",
      "|---|:---|---:|",
      "| 1 | keys double-prefixed | `1ba9885` |",
      "Why it matters: the keys were wrong in every store.",
    ].join("\n");
    expect(tidyMessage(text).split("\n")).toEqual([
      "Pushed.",
      "Final state: - **Branch** `main` @ `77e9977`",
      "Validation: - `npm test` passed",
      "| # | Bug | Fix commit |",
      "| 1 | keys double-prefixed | `1ba9885` |",
      "Why it matters: the keys were wrong in every store.",
    ]);
    // A heading over a heading opens nothing: the inner one heads the line under it.
    expect(tidyMessage("## Summary\n### Changes\n- fixed the rows\n- fixed the header").split("\n")).toEqual([
      "## Summary",
      "Changes: - fixed the rows",
      "- fixed the header",
    ]);
    // Code written without a fence keeps its lines: an indented or lower-case line ending in a colon is no label.
    const code = ["Replace with:", "  try:", "      url = normalize(DB_PATH)", "else:", "    url = None"].join("\n");
    expect(tidyMessage(code).split("\n")).toEqual([
      "Replace with:",
      "  try:",
      "      url = normalize(DB_PATH)",
      "else:",
      "    url = None",
    ]);
  });

  it("shows a run of tool calls as one line naming the files and commands, never their JSON", () => {
    const t = parseText(
      claudeCodeSession([
        { user: "Fix the plugins route." },
        { bash: { command: "grep -n Outlet web/src/App.tsx", output: "12: <Outlet/>" } },
        { edit: { file: "/repo/web/src/App.tsx", old: "<Outlet/>", new: "<Routes/>" } },
        { edit: { file: "/repo/web/src/App.tsx", old: "a", new: "b" } },
        { assistant: "The plugins page renders alone now." },
      ]),
      "claude-code-jsonl",
    );
    const md = renderTail(t.turns, 2000, t.cwd);
    const tools = md.split("\n").filter((l) => l.startsWith("_tool"));
    expect(tools).toHaveLength(1);
    expect(tools[0]).toContain("grep -n Outlet web/src/App.tsx");
    expect(tools[0]).toMatch(/App\.tsx.*×2/);
    expect(md).not.toMatch(/\{"(?:file_path|command|old_string)"/);
    expect(md).toMatch(/^\*\*assistant\*\* \([^)]+\): The plugins page renders alone now\.$/m);
    expect(md).toMatch(/^\*\*user\*\* \([^)]+\): Fix the plugins route\.$/m);
  });

  it("keeps the whole page, recent messages included, within the budget when the last reply is mostly code", () => {
    const code = Array.from({ length: 400 }, (_, i) => `    result_${i} = compute_${i}(payload, options)`).join("\n");
    const steps: Step[] = [
      { user: "Port the report builder to the new API and keep the old CLI flags working." },
      { edit: { file: "/repo/src/report.py", old: "old", new: "new" } },
      { bash: failingTest },
      {
        assistant: `Here is the new builder:\n\n\`\`\`python\n${code}\n\`\`\`\n\nThe old flags map onto the new options.`,
      },
      { user: "Now make the tests pass." },
      { assistant: `Updated version:\n\n\`\`\`python\n${code}\n\`\`\`\n\nTests should pass now.` },
    ];
    const dir = tmpDir();
    const path = join(dir, "s.jsonl");
    writeFileSync(path, claudeCodeSession(steps));
    const db = openDatabase(join(dir, "m.db"));
    try {
      const project = upsertProject(db, "tail", dir);
      const r = compressContext(
        { db, projectId: project.id, root: dir },
        { transcriptPath: path, budgetTokens: 800, keepRecent: 3 },
      );
      expect(r.stats.tokens_total_after).toBeLessThanOrEqual(800);
      const recent = r.markdown.split("## Recent Messages (verbatim)\n")[1] ?? "";
      expect(recent).toContain("Tests should pass now.");
      expect(recent).toContain("Now make the tests pass.");
      expect(recent).toMatch(/\[\d+ lines of code\]/);
      expect(recent).not.toContain("compute_399");
    } finally {
      db.close();
    }
  });
});
