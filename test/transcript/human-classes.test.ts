// The human-turn classifier and what reads it: only standing instructions reach User Constraints, as whole
// sentences even from the middle of a long turn; chit-chat and one-off requests do not; the latest one-off request
// is exposed for the summary's intent and state; distillation stores no rule unit for a request.
import { describe, expect, it } from "vitest";

import { draftUnits } from "../../src/memory/distill.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import {
  classifyTurn,
  codeLine,
  latestRequest,
  standingInstructions,
  throwawayMessage,
} from "../../src/transcript/extraction/human-classes.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

const parsed = (steps: Step[]) => parseText(claudeCodeSession(steps), "claude-code-jsonl");

describe("the human-turn classifier", () => {
  const RULE = "Remember to keep the specification.md updated as we progress, and never edit config/prod.yaml.";
  const long = [
    "Port the billing export to the new reporting service so finance can download monthly statements.",
    "The current exporter writes CSV by hand and breaks on commas inside customer names, which finance keeps hitting.",
    "There is also an old cron job on the reporting box that nobody remembers setting up and it may be related.",
    RULE,
    "Finance mostly opens the files in spreadsheet software on laptops that are a few years old, so size matters.",
    "The statements themselves are generated nightly and are usually a few hundred rows per customer at most.",
  ].join(" ");

  it("keeps a standing rule from the middle of a long turn whole, and only the turn's rule sentences", () => {
    const t = parsed([{ user: long }, { assistant: "I'll start with the exporter." }]);
    expect(classifyTurn(long)).toBe("instruction");
    const c = extractSections(t.turns).constraints;
    expect(c).toHaveLength(1);
    expect(c[0]!.text).toContain(RULE);
    for (const part of c[0]!.text.split(" … ")) expect(long).toContain(part);
  });

  it("does not make chit-chat a constraint", () => {
    const t = parsed([
      { user: "Add retries to the HTTP client." },
      { assistant: "Shall I use exponential backoff?" },
      { user: "yup, go for it. thank you." },
    ]);
    expect(classifyTurn("yup, go for it. thank you.")).not.toBe("instruction");
    expect(
      extractSections(t.turns)
        .constraints.map((f) => f.text)
        .join("\n"),
    ).not.toContain("go for it");
  });

  it("keeps a one-off request out of User Constraints and out of the rule units, and reports it as the latest request", () => {
    const STANDING = "Always keep the README updated every time you change the CLI.";
    const t = parsed([
      { user: STANDING },
      { assistant: "Understood." },
      { user: "list the unused functions" },
      { assistant: "Here are the unused functions: parseLegacy, oldFormat." },
      { user: "Can you list the unused functions in the tests folder too?" },
      { assistant: "In tests/: makeFixtureOld." },
    ]);
    expect(classifyTurn(STANDING)).toBe("instruction");
    expect(classifyTurn("list the unused functions")).not.toBe("instruction");
    const s = extractSections(t.turns);
    expect(s.constraints.map((f) => f.text)).toEqual([STANDING]);
    const rules = draftUnits("s1", t.turns, s)
      .filter((d) => d.category === "commitment")
      .map((d) => d.text);
    expect(rules).toEqual([STANDING]);
    expect(latestRequest(t.turns)?.text).toBe("Can you list the unused functions in the tests folder too?");
  });

  it("never takes pasted code for a rule, even when the code says must", () => {
    const spec = [
      "Add a validation script for the capture boundary and run it.",
      'assert cap_lo != cap_hi, "endpoints must straddle the boundary"',
      "for lam2 in lam2_values:",
      'print("Only the lam2 sweep separates them.")',
      "Never modify integrate.py; it is read-only.",
    ].join("\n");
    expect(codeLine('assert cap_lo != cap_hi, "endpoints must straddle the boundary"')).toBe(true);
    expect(codeLine("alpha=20, beta=0 — must escape")).toBe(true);
    expect(codeLine("Use `load()` instead of `read()` in the importer.")).toBe(false);
    expect(codeLine("Never modify integrate.py; it is read-only.")).toBe(false);
    const t = parsed([{ user: spec }, { assistant: "Writing the script." }]);
    const lines = standingInstructions(t.turns).map((f) => f.text);
    expect(lines.join("\n")).not.toMatch(/assert|lam2_values|print\(/);
    expect(lines.join("\n")).toContain("Never modify integrate.py; it is read-only.");
  });

  it("keeps a rule said in words that names a call or a setting, and a rule typed in lower case", () => {
    const rules = [
      "Never call fetch() directly in components; always use apiClient.",
      "Always build with NODE_ENV=production before you deploy.",
      "from now on never push to main without a green pipeline",
    ];
    for (const r of rules) expect(codeLine(r)).toBe(false);
    expect(codeLine("result = compute(x, y)  # must be positive")).toBe(true);
    for (const r of rules) {
      const t = parsed([{ user: r }, { assistant: "Understood." }]);
      expect(standingInstructions(t.turns).map((f) => f.text)).toEqual([r]);
    }
  });

  it("never takes a pasted log or trace for a rule, even when a log line says must", () => {
    const report = [
      "The nightly import fails again, here is the log:",
      "2024-05-02 03:10:44 WARN cache must be warmed before the import starts",
      "[ERROR] worker 3 must not hold the lock across batches",
      "    at Importer.run (src/import/run.ts:88:13)",
      "Do not change the batch size in import.config.json.",
    ].join("\n");
    expect(codeLine("2024-05-02 03:10:44 WARN cache must be warmed before the import starts")).toBe(true);
    expect(codeLine("    at Importer.run (src/import/run.ts:88:13)")).toBe(true);
    expect(codeLine("Do not change the batch size in import.config.json.")).toBe(false);
    const t = parsed([{ user: report }, { assistant: "I'll read the importer." }]);
    const all = standingInstructions(t.turns)
      .map((f) => f.text)
      .join("\n");
    expect(all).not.toMatch(/WARN|ERROR|Importer\.run/);
    expect(all).toContain("Do not change the batch size in import.config.json.");
  });

  it("keeps every rule of a harness prompt that sets many, in as many lines as it takes, each sentence whole", () => {
    const rules = [
      "Remember, YOU CAN ONLY ENTER ONE COMMAND AT A TIME.",
      "You should always wait for feedback after every command.",
      "Note however that you cannot use any interactive session commands in this environment, but you can write scripts and run them.",
      "When editing a file, make sure to insert appropriate indentation before each line!",
      "Always start by trying to replicate the bug that the issue discusses.",
      "DO NOT run any command that produces binary output!",
      "Do not use any interactive commands AT ALL, they will hang the session.",
    ];
    const prompt = [
      "We're currently solving the following issue within our repository.",
      "ISSUE: the parser drops the last line of a file without a trailing newline.",
      ...rules,
    ].join(" ");
    const t = parsed([{ user: prompt }, { assistant: "Let me look at the parser." }]);
    const lines = standingInstructions(t.turns).map((f) => f.text);
    const all = lines.join("\n");
    for (const r of rules) expect(all).toContain(r);
    expect(lines.length).toBeGreaterThan(1);
    expect(all).not.toContain("ISSUE:");
  });
});

describe("answers and pasted code are not rules", () => {
  it("keeps a person's answer to the agent's question out of User Constraints and records it as their pick", () => {
    const t = parsed([
      { user: "Add session storage for the login tokens." },
      { assistant: "Should I keep the tokens in Redis or in Postgres?" },
      { user: "Postgres, we already run it." },
      { assistant: "I'll add a tokens table to Postgres." },
    ]);
    const s = extractSections(t.turns);
    expect(s.constraints.map((f) => f.text).join("\n")).not.toContain("Postgres");
    expect(s.decisions.map((f) => f.text).join("\n")).toContain('the person chose "Postgres, we already run it."');
  });

  it("takes a pasted Python import for code, not for a sentence said", () => {
    expect(codeLine("from .flow_nodes import run_text_to_sql")).toBe(true);
    expect(codeLine("from now on import the fixtures from tests/fixtures only")).toBe(false);
    expect(codeLine("from typing import List, Dict as D  # noqa")).toBe(true);
    expect(codeLine("from there import the rows into the staging table")).toBe(false);
  });
});

describe("rules inside a request", () => {
  it("keeps the request's rule sentences whole, not the request, and not a wish to be told something", () => {
    const rule =
      "When we are creating the customers I don't want them deleted from the staging table, just their status changed.";
    const ask = [
      "Please add bulk creation of customers from the staging table to the sync page.",
      rule,
      "I also want to know what we have to do to package the extension for other people.",
      "Note however that you cannot use any interactive commands (e.g. python, vim) in this environment.",
    ].join(" ");
    const t = parsed([{ user: ask }, { assistant: "I'll add the bulk action." }]);
    const all = standingInstructions(t.turns)
      .map((f) => f.text)
      .join("\n");
    expect(all).toContain(rule);
    expect(all).toContain(
      "Note however that you cannot use any interactive commands (e.g. python, vim) in this environment.",
    );
    expect(all).not.toContain("Please add bulk creation");
    expect(all).not.toContain("I also want to know");
  });
});

describe("the session's intent", () => {
  it("is the first request, not a greeting, nor an export title that only cuts that request short", () => {
    const ask =
      "So there's an error with the undo layers: undo itself works, but after an undo, redo fails. Please fix redo.";
    const t = parsed([
      { user: "hey" },
      { assistant: "Hi! What are we working on?" },
      { user: ask },
      { assistant: "I'll look at the redo path." },
    ]);
    const intent = extractSections(t.turns, {
      title: "So there's an error with the undo layers: undo its (2025-06-21 14:12Z)",
    }).intent.map((f) => f.text);
    expect(intent).toEqual([ask]);
  });

  it("is not a greeting that an export made the title of, and keeps the title of a session that only answers", () => {
    const ask = "Add a CSV export button to the monthly reports page.";
    const greeted = parsed([
      { user: "good morning :)" },
      { assistant: "Morning!" },
      { user: ask },
      { assistant: "On it." },
    ]);
    expect(extractSections(greeted.turns, { title: "good morning :)" }).intent.map((f) => f.text)).toEqual([ask]);
    const resumed = parsed([{ user: "continue" }, { assistant: "Picking up the retry queue." }]);
    const intent = extractSections(resumed.turns, { title: "Stripe webhook retries (2026-02-01 10:00Z)" }).intent;
    expect(intent.map((f) => f.text)[0]).toBe("Stripe webhook retries");
  });

  it("drops the date an export stamps on a title, not a date that is part of the title's words", () => {
    const t = parsed([{ user: "Write the migration for the orders table." }, { assistant: "On it." }]);
    const title = (name: string) => extractSections(t.turns, { title: name }).intent.map((f) => f.text)[0];
    expect(title("Migrate the orders to schema 2025-01-01")).toBe("Migrate the orders to schema 2025-01-01");
    expect(title("Orders schema cleanup - 2025-03-26 00:32:05")).toBe("Orders schema cleanup");
    expect(title("2026-05-21 06:41:40Z")).toBe("Write the migration for the orders table.");
  });

  it("drops a title that only restates the first request in other words", () => {
    const ask = "@politipo Help me with the console output of main.py";
    const t = parsed([{ user: ask }, { assistant: "Let me run main.py." }]);
    const intent = extractSections(t.turns, { title: "Console Output Assistance" }).intent.map((f) => f.text);
    expect(intent).toEqual([ask]);
  });

  it("keeps a title whose words only a long paste in the request has, past what the intent keeps of it", () => {
    const trace = Array.from({ length: 40 }, (_, i) => `  File "/srv/app/db/pool.py", line ${i + 10}, in acquire`);
    const ask = [
      "The app keeps failing on startup, see below, fix it please.",
      ...trace,
      'psycopg2.OperationalError: connection to server at "db" timed out (database pool exhausted)',
    ].join("\n");
    const t = parsed([{ user: ask }, { assistant: "On it." }]);
    const intent = extractSections(t.turns, { title: "Database Connection Timeout" }).intent.map((f) => f.text);
    expect(intent[0]).toBe("Database Connection Timeout");
  });

  it("passes over client commands that only run a shell command for the person (an aider session)", () => {
    const history = [
      "",
      "# aider chat started at 2025-05-24 16:38:38",
      "",
      "> Aider v0.82.2  ",
      "",
      "#### /run uv sync  ",
      "> Add 0.0k tokens of command output to the chat? (Y)es/(N)o [Yes]: n  ",
      "",
      "#### /run cd backend && uv run main.py  ",
      "> Add 1.2k tokens of command output to the chat? (Y)es/(N)o [Yes]: y  ",
      "> Added 46 lines of output to the chat.  ",
      "",
      "#### The server fails on startup with a database connection error, fix the async driver setup.  ",
      "",
      "I'll switch the engine to the asyncpg driver.",
      "",
    ].join("\n");
    const t = parseText(history, "aider-md");
    expect(extractSections(t.turns, {}).intent.map((f) => f.text)).toEqual([
      "The server fails on startup with a database connection error, fix the async driver setup.",
    ]);
  });

  it("passes over a one-word test message and a message that only names a file, not a skill's command", () => {
    const ask = "Add VAT rounding to the invoice totals, half up to two decimals.";
    const t = parsed([
      { user: "test" },
      { assistant: "Hello! How can I help you today?" },
      { user: "@src/billing/invoice.ts" },
      { assistant: "I have the file open. What should change?" },
      { user: ask },
      { assistant: "On it." },
    ]);
    expect(extractSections(t.turns, {}).intent.map((f) => f.text)).toEqual([ask]);
    const skill = parsed([{ user: "S016 /implement S5" }, { assistant: "Reading the spec for slice S5." }]);
    expect(extractSections(skill.turns, {}).intent.map((f) => f.text)).toEqual(["S016 /implement S5"]);
    const review = "/resolve-reviews on https://github.com/acme/shop/pull/341";
    const reviews = parsed([{ user: review }, { assistant: "Fetching the review comments." }]);
    expect(extractSections(reviews.turns, {}).intent.map((f) => f.text)).toEqual([review]);
  });

  it("takes a one-word request on a link or a path as the task, not a later follow-up", () => {
    for (const ask of ["fix https://github.com/acme/shop/issues/476", "refactor src/billing/invoice.ts"]) {
      const t = parsed([
        { user: ask },
        { assistant: "Reading it now." },
        { user: "also add a regression test for the totals" },
        { assistant: "Adding one." },
      ]);
      expect(extractSections(t.turns, {}).intent.map((f) => f.text)).toEqual([ask]);
    }
  });

  it("takes a one-word request above pasted code as the task, told with the code", () => {
    const error = "TypeError: Cannot read properties of undefined (reading 'total')";
    const t = parsed([
      { user: ["fix", "```", error, "    at sumInvoice (src/billing/invoice.ts:42:17)", "```"].join("\n") },
      { assistant: "Looking at sumInvoice." },
      { user: "also add a regression test for the totals" },
      { assistant: "Adding one." },
    ]);
    const intent = extractSections(t.turns, {}).intent.map((f) => f.text);
    expect(intent).toHaveLength(1);
    expect(intent[0]).toMatch(/^fix TypeError: Cannot read properties of undefined/);
  });

  it("counts the words of a message in a language written without spaces", () => {
    expect(throwawayMessage("继续")).toBe(true);
    expect(throwawayMessage("修复登录页面的错误")).toBe(false);
    expect(throwawayMessage("ログイン画面のバグを直してください")).toBe(false);
    expect(throwawayMessage("修复bug")).toBe(false);
  });

  it("keeps no title an export cut from a throwaway first message", () => {
    const ask = "Add VAT rounding to the invoice totals, half up to two decimals.";
    for (const first of ["test", "/run uv sync", "@src/billing/invoice.ts"]) {
      const t = parsed([
        { user: first },
        { assistant: "Hello! How can I help you today?" },
        { user: ask },
        { assistant: "On it." },
      ]);
      expect(extractSections(t.turns, { title: first }).intent.map((f) => f.text)).toEqual([ask]);
    }
  });

  it("takes a request typed beside the issue's link, though the link makes the turn look pasted", () => {
    const ask = "https://github.com/acme/shop/issues/476 fix this issue if they're actionable fixes";
    const t = parsed([
      { user: ask },
      { assistant: "Reading issue 476." },
      { user: "also check closed issues to see if something similar caused this before" },
      { assistant: "Searching closed issues." },
    ]);
    expect(extractSections(t.turns, {}).intent.map((f) => f.text)).toEqual([ask]);
  });

  it("takes a long first message of a task brief that the classifier calls pasted, not a later short request", () => {
    const brief = [
      '继续 web 层。目标:在 ~/code/shop/web/ + shared/ 里做"购物车重构 + 结账页面"。',
      "",
      "    读 shop_m2 看上下文。Spec §6 + §4.1 是设计依据。",
      "",
      "    切 worktree (branch 建议 web-cart-refactor)。",
      "    不要碰 crates/ / bin/ / scripts/ — 那些是别的 session 的事。",
      "",
    ].join("\n");
    // The classifier calls it pasted (paths, indented lines), though most of its weight says it asks for work.
    expect(classifyTurn(brief)).toBe("pasted");
    const t = parsed([
      { user: brief },
      { assistant: "先读上下文。" },
      { user: "continue" },
      { assistant: "继续。" },
      { user: "使用 playwright 自行测试" },
      { assistant: "好的。" },
    ]);
    const intent = extractSections(t.turns, {}).intent.map((f) => f.text);
    expect(intent).toHaveLength(1);
    expect(intent[0]).toContain("web-cart-refactor");
  });

  it("keeps a title of its own without its date", () => {
    const t = parsed([{ user: "Merge the two customer tables into one." }, { assistant: "On it." }]);
    const intent = extractSections(t.turns, { title: "Consolidating duplicate objects (2025-10-03 06:42Z)" }).intent;
    expect(intent.map((f) => f.text)).toEqual([
      "Consolidating duplicate objects",
      "Merge the two customer tables into one.",
    ]);
  });
});
