// State from events in the shapes real sessions have: an aider /undo and a git restore leave the file reverted, a
// failure a later clean run settles is resolved while one never rerun stays open, a Copilot edit call is in the
// ledger, a rule in the middle of a long turn is kept as whole sentences, an approval is not a constraint, and the
// page with its recent messages stays within the budget.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { compressContext } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { eventState, sessionEvents } from "../../src/transcript/events/events.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";
import { fixture } from "./data.js";

const sectionsOf = (steps: Step[]) => {
  const t = parseText(claudeCodeSession(steps), "claude-code-jsonl");
  return { s: extractSections(t.turns, { cwd: t.cwd }), turns: t.turns };
};

const AIDER_UNDO = [
  "# aider chat started at 2025-05-01 10:00:00",
  "",
  "#### add the mongo settings to the development config",
  "",
  "I'll add the MongoDB settings.",
  "",
  "appsettings.Development.json",
  "```json",
  "<<<<<<< SEARCH",
  "{",
  "=======",
  '{ "Mongo": { "Db": "CatalogDB" },',
  ">>>>>>> REPLACE",
  "```",
  "",
  "> Tokens: 11k sent, 177 received. Cost: $0.03 message, $0.26 session.  ",
  "> Applied edit to appsettings.Development.json  ",
  "> Commit 609f42e feat: add MongoDB configuration to development settings  ",
  "",
  "#### /undo  ",
  "> Removed: 609f42e feat: add MongoDB configuration to development settings  ",
  "> Now at:  e8033b5 refactor: update IProductRepository  ",
  "> You can use /undo to undo and discard each aider commit.  ",
  "",
].join("\n");

describe("reverts", () => {
  it("an aider /undo leaves the committed file reverted, not modified", () => {
    const t = parseText(AIDER_UNDO, "aider-md");
    const s = extractSections(t.turns);
    const ops = s.files["appsettings.Development.json"]!.map((o) => o.op);
    expect(ops[ops.length - 1]).toBe("reverted (/undo)");
    expect(s.state.map((f) => f.text)).toContain(
      "`appsettings.Development.json` is back to its committed state (/undo)",
    );
  });

  it("git restore of an edited file reverts it; a file edited after it stays changed", () => {
    const { s } = sectionsOf([
      { user: "Bump the gradle plugin and the readme." },
      { edit: { file: "/repo/build.gradle", old: "version 1", new: "version 2" } },
      { edit: { file: "/repo/README.md", old: "v1", new: "v2" } },
      { bash: { command: "git restore build.gradle", output: "" } },
    ]);
    const last = (name: string) => {
      const ops = Object.entries(s.files).find(([p]) => p.endsWith(name))![1];
      return ops[ops.length - 1]!.op;
    };
    expect(last("build.gradle")).toBe("reverted (git restore)");
    expect(last("README.md")).not.toMatch(/reverted/);
  });
});

describe("errors settled by events", () => {
  const failing = {
    command: "npm test",
    output:
      "FAIL src/a.test.ts\nTypeError: Cannot read properties of undefined (reading 'id')\nTests: 1 failed, 3 passed",
    error: true,
  };

  it("a later clean run of the same command resolves the error", () => {
    const { s } = sectionsOf([
      { user: "Fix the failing test." },
      { bash: failing },
      { edit: { file: "/repo/src/a.ts", old: "x.id", new: "x?.id" } },
      { bash: { command: "cd /repo && npm test 2>&1 | tail -5", output: "Tests: 4 passed" } },
    ]);
    const f = s.failures.find((x) => x.text.includes("Cannot read properties"))!;
    expect(f.resolved).toBeDefined();
    expect(s.blockers.map((b) => b.text).join("\n")).not.toContain("Cannot read properties");
  });

  it("an error never rerun clean stays open among the blockers", () => {
    const { s } = sectionsOf([{ user: "Fix the failing test." }, { bash: failing }]);
    const f = s.failures.find((x) => x.text.includes("Cannot read properties"))!;
    expect(f.resolved).toBeUndefined();
    expect(s.blockers.map((b) => b.text).join("\n")).toContain("unresolved: TypeError: Cannot read properties");
  });

  it("an error of the span is no blocker once the person moved on to a new request among the kept messages", () => {
    const turns = parseText(
      claudeCodeSession([
        { user: "Fix the failing test." },
        { bash: failing },
        { user: "Leave that; add a README section on setup instead." },
        { assistant: "Adding the setup section now." },
      ]),
      "claude-code-jsonl",
    ).turns;
    const cut = turns.findIndex((t) => t.text.includes("Leave that"));
    const s = extractSections(turns.slice(0, cut), { after: turns.slice(cut) });
    expect(s.blockers.map((b) => b.text).join("\n")).not.toContain("Cannot read properties");
    const whole = extractSections(turns.slice(0, cut));
    expect(whole.blockers.map((b) => b.text).join("\n")).toContain("unresolved: TypeError: Cannot read properties");
  });

  it("a tool's refusal to edit an unread file is resolved by the later edit of that file", () => {
    const { s } = sectionsOf([
      { user: "Rename the flag in the config loader." },
      {
        tool: {
          name: "Edit",
          input: { file_path: "/repo/src/config.ts", old_string: "flagA", new_string: "flagB" },
          output: "File has not been read yet. Read it first before writing to it.",
          error: true,
        },
      },
      { read: { file: "/repo/src/config.ts", lines: ["export const flagA = true;"] } },
      { edit: { file: "/repo/src/config.ts", old: "flagA", new: "flagB" } },
    ]);
    const f = s.failures.find((x) => x.text.includes("has not been read yet"))!;
    expect(f.resolved).toBeDefined();
    expect(f.open).toBe(false);
    expect(s.blockers.map((b) => b.text).join("\n")).not.toContain("has not been read yet");
  });

  it("a refusal on one file is not resolved by an edit of another", () => {
    const { s } = sectionsOf([
      { user: "Rename the flag in the config loader." },
      {
        tool: {
          name: "Edit",
          input: { file_path: "/repo/src/config.ts", old_string: "flagA", new_string: "flagB" },
          output: "File has not been read yet. Read it first before writing to it.",
          error: true,
        },
      },
      { edit: { file: "/repo/src/other.ts", old: "a", new: "b" } },
    ]);
    expect(s.failures.find((x) => x.text.includes("has not been read yet"))!.resolved).toBeUndefined();
  });

  it("a refused edit and a failing test answered in one turn: the later edit settles the refusal, not the test", () => {
    // Parallel calls: one assistant message with two calls, one user message with both results.
    const base = claudeCodeSession([{ user: "Rename the flag and run the tests." }])
      .trim()
      .split("\n");
    const first = JSON.parse(base[base.length - 1]!) as Record<string, unknown>;
    let parent = first.uuid;
    const rec = (n: number, type: "user" | "assistant", content: unknown[]) => {
      const uuid = `5e55a0e1-0000-4000-8000-0000000001${String(n).padStart(2, "0")}`;
      const message = type === "assistant" ? { role: type, type: "message", content } : { role: type, content };
      const line = JSON.stringify({ ...first, parentUuid: parent, type, uuid, message });
      parent = uuid;
      return line;
    };
    const edit = { file_path: "/repo/src/config.ts", old_string: "flagA", new_string: "flagB" };
    const lines = [
      ...base,
      rec(1, "assistant", [
        { type: "tool_use", id: "toolu_a", name: "Edit", input: edit },
        { type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "npm test" } },
      ]),
      rec(2, "user", [
        {
          type: "tool_result",
          tool_use_id: "toolu_a",
          is_error: true,
          content: "File has not been read yet. Read it first.",
        },
        {
          type: "tool_result",
          tool_use_id: "toolu_b",
          is_error: true,
          content: "FAIL src/config.test.ts\nTypeError: Cannot read properties of undefined (reading 'flag')",
        },
      ]),
      rec(3, "assistant", [
        { type: "tool_use", id: "toolu_c", name: "Read", input: { file_path: "/repo/src/config.ts" } },
      ]),
      rec(4, "user", [{ type: "tool_result", tool_use_id: "toolu_c", content: "1\texport const flagA = true;" }]),
      rec(5, "assistant", [{ type: "tool_use", id: "toolu_d", name: "Edit", input: edit }]),
      rec(6, "user", [
        { type: "tool_result", tool_use_id: "toolu_d", content: "The file /repo/src/config.ts has been updated." },
      ]),
    ];
    const s = extractSections(parseText(`${lines.join("\n")}\n`, "claude-code-jsonl").turns);
    expect(s.failures.find((f) => f.text.includes("has not been read yet"))!.resolved).toBeDefined();
    expect(s.failures.find((f) => f.text.includes("Cannot read properties"))!.resolved).toBeUndefined();
  });

  it("an error the kept messages end on is a blocker of the page, with the turn it was hit", () => {
    const turns = parseText(
      claudeCodeSession([
        { user: "Add the export endpoint." },
        { edit: { file: "/repo/src/api.ts", old: "a", new: "b" } },
        { user: "Now run the tests." },
        { bash: failing },
      ]),
      "claude-code-jsonl",
    ).turns;
    const cut = turns.findIndex((t) => t.text.includes("Now run the tests"));
    const s = extractSections(turns.slice(0, cut), { after: turns.slice(cut) });
    const line = s.blockers.find((b) => b.text.includes("Cannot read properties"));
    expect(line?.text).toMatch(/^unresolved: /);
    expect(turns.slice(cut).map((t) => t.id)).toContain(line!.turn);
  });

  it("an open error quoted the way shells quote (`fi') stays a blocker", () => {
    const { s } = sectionsOf([
      { user: "Fix the deploy script." },
      { edit: { file: "/repo/deploy.sh", old: "a", new: "b" } },
      {
        bash: {
          command: "bash deploy.sh",
          output: "deploy.sh: line 12: syntax error near unexpected token `fi'\ndeploy.sh: line 12: `fi'",
          error: true,
        },
      },
    ]);
    expect(s.blockers.map((b) => b.text).join("\n")).toContain("syntax error near unexpected token `fi'");
  });

  it("a rerun that fails again keeps it open", () => {
    const turns = parseText(
      claudeCodeSession([{ user: "Fix it." }, { bash: failing }, { bash: failing }]),
      "claude-code-jsonl",
    ).turns;
    const runs = sessionEvents(turns).filter((e) => e.type === "run");
    expect(runs.map((r) => r.type === "run" && r.ok)).toEqual([false, false]);
    expect(eventState(sessionEvents(turns)).reverted.size).toBe(0);
  });
});

describe("Copilot edit calls", () => {
  it("copilot_replaceString and copilot_createFile are rows of the ledger", () => {
    const { s } = sectionsOf([
      { user: "Consolidate the customer objects." },
      {
        tool: {
          name: "copilot_replaceString",
          input: { filePath: "/repo/src/Customer.Table.al", oldString: "field(1)", newString: "field(2)" },
          output: "The following files were successfully edited:\n/repo/src/Customer.Table.al",
        },
      },
      {
        tool: {
          name: "copilot_createFile",
          input: { filePath: "/repo/src/Vendor.Table.al", content: "table 50101 Vendor {}" },
          output: "The following files were successfully edited:\n/repo/src/Vendor.Table.al",
        },
      },
    ]);
    const paths = Object.keys(s.files);
    for (const f of ["src/Customer.Table.al", "src/Vendor.Table.al"])
      expect(paths.some((p) => p.endsWith(f))).toBe(true);
  });
});

describe("User Constraints", () => {
  const RULE = "Do not touch the invoices table schema, another team migrates it next week.";
  const long = [
    "Port the billing export to the new reporting service so finance can download monthly statements.",
    "The current exporter writes CSV by hand and breaks on commas inside customer names, which finance keeps hitting.",
    "There is also an old cron job on the reporting box that nobody remembers setting up and it may be related.",
    RULE,
    "Finance mostly opens the files in spreadsheet software on laptops that are a few years old, so size matters a bit.",
    "The statements themselves are generated nightly and are usually a few hundred rows per customer at most.",
    "Also please keep the existing file names because some downstream scripts look for them by pattern.",
  ].join(" ");

  it("keeps a rule from the middle of a long turn as a whole sentence, never cut inside a sentence", () => {
    const { s } = sectionsOf([{ user: long }]);
    const c = s.constraints.map((f) => f.text).join(" … ");
    expect(c).toContain(RULE);
    for (const part of c.split(" … ")) expect(long).toContain(part);
  });

  it("leaves out an approval with thanks", () => {
    const { s } = sectionsOf([
      { user: "Add retries to the HTTP client." },
      { assistant: "Shall I use exponential backoff?" },
      { user: "yup, go for it. thank you." },
    ]);
    expect(s.constraints.map((f) => f.text).join("\n")).not.toContain("go for it");
  });
});

describe("the page and its budget", () => {
  it("keeps the summary and the recent messages within the budget, without tool-call JSON", () => {
    const dir = tmpDir();
    const db = openDatabase(join(dir, "m.db"));
    try {
      const project = upsertProject(db, "ev", dir);
      const r = compressContext(
        { db, projectId: project.id, root: dir },
        { transcriptPath: fixture("claude-code.jsonl"), budgetTokens: 600, keepRecent: 5 },
      );
      expect(r.stats.tokens_total_after).toBeLessThanOrEqual(600);
      const recent = r.markdown.split("## Recent Messages (verbatim)\n")[1] ?? "";
      expect(recent).not.toBe("");
      expect(recent).not.toMatch(/\{"(?:file_path|command|todos)"/);
      // A heading inside a kept message is quoted: it cannot start a section of its own.
      expect(recent).not.toMatch(/^#{1,6} /m);
    } finally {
      db.close();
    }
  });
});
