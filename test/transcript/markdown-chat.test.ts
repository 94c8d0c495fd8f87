// Markdown exports of agent sessions in layouts memcards has no parser of its own for: alternating role headings or
// labels, tool calls and results where the export gives them a shape, reasoning left out. A document that is not a
// transcript is still refused with UNKNOWN_FORMAT.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { fileEvents } from "../../src/transcript/events/ledger.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { chatShape, roleMarker } from "../../src/transcript/formats/markdown-chat.js";
import { detectFormat, parseText, parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { withoutReasoning } from "../../src/transcript/formats/reasoning.js";

const fence = "```";

/** A Claude Code session exported by a third-party tool: emoji role headings, timestamps, tool blocks. */
const EMOJI_EXPORT = [
  "# Agent Session Export",
  "",
  "**Session ID:** `0b5e2c1a-77aa-4c1e-9d1b-52a3c4f6e001`",
  "**Project:** `/home/dev/ledger-app`",
  "",
  "---",
  "",
  "**[2025-03-04 09:00:01]**",
  "",
  "### 👤 User",
  "",
  "The totals row in the monthly report double counts refunds. Fix it, and never touch the migrations folder.",
  "",
  "---",
  "",
  "**[2025-03-04 09:00:09]**",
  "",
  "### 🤖 Assistant (some-model-2025)",
  "",
  "<details>",
  "<summary>💭 Internal Reasoning (click to expand)</summary>",
  "",
  fence,
  "Refunds are probably added once as negative lines and once in the refund column.",
  fence,
  "</details>",
  "",
  "---",
  "",
  "### 🤖 Assistant (some-model-2025)",
  "",
  "🔧 **Tool Use: Read** (ID: call_read_1)",
  `${fence}json`,
  "{",
  '  "file_path": "/home/dev/ledger-app/src/report.py"',
  "}",
  fence,
  "",
  "---",
  "",
  "### 👤 User",
  "",
  "📊 **Tool Result:**",
  fence,
  "def totals(rows):",
  "    # the helper below is documented as:",
  `    ${fence}`,
  "    return sum(r.amount for r in rows) + sum(r.refund for r in rows)",
  fence,
  "",
  "---",
  "",
  "### 🤖 Assistant (some-model-2025)",
  "",
  "🔧 **Tool Use: Edit** (ID: call_edit_1)",
  `${fence}json`,
  "{",
  '  "file_path": "/home/dev/ledger-app/src/report.py",',
  '  "old_string": "return sum(r.amount for r in rows) + sum(r.refund for r in rows)",',
  '  "new_string": "return sum(r.amount for r in rows)"',
  "}",
  fence,
  "",
  "---",
  "",
  "### 👤 User",
  "",
  "📊 **Tool Result:**",
  fence,
  "The file /home/dev/ledger-app/src/report.py has been updated.",
  fence,
  "",
  "---",
  "",
  "### 🤖 Assistant (some-model-2025)",
  "",
  "🔧 **Tool Use: Bash** (ID: call_bash_1)",
  `${fence}json`,
  '{ "command": "pytest tests/test_report.py -q" }',
  fence,
  "",
  "### 👤 User",
  "",
  "📊 **Tool Result:**",
  fence,
  "3 passed in 0.12s",
  fence,
  "",
  "### 🤖 Assistant (some-model-2025)",
  "",
  "The totals row no longer adds refunds twice; the report tests pass.",
  "",
].join("\n");

describe("markdown chat exports", () => {
  it("reads an emoji-heading export: messages, reasoning left out, tool calls paired with their results", () => {
    expect(detectFormat(EMOJI_EXPORT)).toBe("markdown-chat");
    const t = parseText(EMOJI_EXPORT, "markdown-chat");
    expect(t.cwd).toBe("/home/dev/ledger-app");
    expect(t.session_id).toBe("0b5e2c1a-77aa-4c1e-9d1b-52a3c4f6e001");
    expect(t.turns.map((x) => x.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    const text = t.turns.map((x) => x.text).join("\n");
    expect(text).not.toMatch(/Internal Reasoning|probably added once|\*\*\[2025/);
    expect(t.turns[0]!.text).toMatch(/^The totals row .* migrations folder\.$/);
    const calls = t.turns.flatMap((x) => x.tool_calls);
    expect(calls.map((c) => [c.name, c.id])).toEqual([
      ["Read", "call_read_1"],
      ["Edit", "call_edit_1"],
      ["Bash", "call_bash_1"],
    ]);
    expect(calls[2]!.input).toEqual({ command: "pytest tests/test_report.py -q" });
    const results = t.turns.flatMap((x) => x.tool_results);
    expect(results.map((r) => r.call_id)).toEqual(["call_read_1", "call_edit_1", "call_bash_1"]);
    // A fence inside a result that the export did not escape does not end the result.
    expect(results[0]!.output).toContain("+ sum(r.refund for r in rows)");
    expect(fileEvents(t.turns).map((e) => [e.path, e.op.split(":")[0]])).toEqual([
      ["/home/dev/ledger-app/src/report.py", "edited"],
    ]);
    const s = extractSections(t.turns, { cwd: t.cwd });
    expect(Object.keys(s.files)).toEqual(["src/report.py"]);
  });

  it("reads `## Human` / `## Assistant` headings and `**User:**` labels with the message on the label's line", () => {
    const human = [
      "# Chat about the parser",
      "",
      "## Human",
      "",
      "Why does the tokenizer drop the last token?",
      "",
      "## Assistant",
      "",
      "The loop stops one short: `range(len(s) - 1)`.",
      "",
      "## Human",
      "",
      "Fix it please.",
      "",
      "## Assistant",
      "",
      "Changed the bound to `range(len(s))`.",
    ].join("\n");
    expect(detectFormat(human)).toBe("markdown-chat");
    expect(parseText(human, "markdown-chat").turns.map((x) => [x.role, x.text.slice(0, 12)])).toEqual([
      ["user", "Why does the"],
      ["assistant", "The loop sto"],
      ["user", "Fix it pleas"],
      ["assistant", "Changed the "],
    ]);
    const labels = [
      "**You:** Can the export keep file modes?",
      "",
      "**ChatGPT:** Yes: pass `preserve=True` to the copier.",
      "",
      "**You:** And symlinks?",
      "",
      "**ChatGPT (4o):**",
      "Those are followed unless `follow=False` is given.",
    ].join("\n");
    expect(detectFormat(labels)).toBe("markdown-chat");
    expect(parseText(labels, "markdown-chat").turns.map((x) => [x.role, x.text.slice(0, 10)])).toEqual([
      ["user", "Can the ex"],
      ["assistant", "Yes: pass "],
      ["user", "And symlin"],
      ["assistant", "Those are "],
    ]);
  });

  it("takes role words only with metadata after them, in one shape", () => {
    expect(roleMarker("## User (2025-03-04 09:00)")?.role).toBe("user");
    expect(roleMarker("### 🤖 Agent — Mar 4, 2025 9:00 AM")?.role).toBe("assistant");
    expect(roleMarker("## Benutzer")?.role).toBe("user");
    expect(roleMarker("## User Guide")).toBeUndefined();
    expect(roleMarker("## Assistant configuration options")).toBeUndefined();
    expect(roleMarker("**Agent** runs the tests on every push.")).toBeUndefined();
    // Headings of two shapes do not add up to a chat.
    expect(chatShape("## User\nhi\n### Assistant\nhello\n## User\nmore\n### Assistant\nok")).toBeUndefined();
  });

  it("still refuses a markdown document that is not a transcript", () => {
    const doc = [
      "# Ledger app",
      "",
      "## User",
      "",
      "Users sign in with their email.",
      "",
      "## Assistant",
      "",
      "The assistant panel suggests categories.",
      "",
      "## Installation",
      "",
      "Run `pip install .`.",
    ].join("\n");
    expect(() => detectFormat(doc)).toThrow(/cannot tell the transcript format/);
    const dir = mkdtempSync(join(tmpdir(), "mc-mdchat-"));
    const path = join(dir, "README.md");
    writeFileSync(path, doc);
    expect(() => parseTranscriptFile(path)).toThrow(expect.objectContaining({ code: "UNKNOWN_FORMAT" }));
  });
});

// Sizes where work that grows with the square of the input takes minutes; read in one pass they take milliseconds.
describe("markdown chat exports of hostile size", () => {
  it("reads an export of 30,000 exchanges", () => {
    const text = "**User:** ask\n**Assistant:** answer\n".repeat(30_000);
    const t = parseText(text, "markdown-chat");
    expect(t.turns).toHaveLength(60_000);
    expect(t.turns.at(-1)).toMatchObject({ role: "assistant", text: "answer" });
  });

  it("reads one reply of 40,000 tool calls, each paired with its result", () => {
    const call = ["Tool use: Bash", `${fence}bash`, "ls", fence, "Tool Result:", fence, "out", fence].join("\n");
    const text = ["**User:** a", "**Assistant:** b", "**User:** list it", "**Assistant:** on it"].join("\n");
    const t = parseText(`${text}\n${`${call}\n`.repeat(40_000)}`, "markdown-chat");
    const reply = t.turns.find((x) => x.role === "assistant" && x.text === "on it");
    expect(reply?.tool_calls).toHaveLength(40_000);
    const results = t.turns.filter((x) => x.role === "tool").flatMap((x) => x.tool_results ?? []);
    expect(results).toHaveLength(40_000);
    expect(results.every((r) => r.output === "out")).toBe(true);
  });

  it("leaves 60,000 never-closed reasoning openings as words, and still drops the closed block after them", () => {
    for (const open of [
      "<reasoning> kept\n",
      "<details><summary>Thinking</summary> kept\n",
      "---\n► **THINKING**\nkept\n",
    ]) {
      const out = withoutReasoning(`${open.repeat(60_000)}<think>hidden</think>shown`);
      expect(out).not.toContain("hidden");
      expect(out.endsWith("shown")).toBe(true);
      expect(out.match(/kept/g)).toHaveLength(60_000);
    }
  });
});

describe("markdown documents with role sections", () => {
  it("refuses a changelog and a prompt library whose role sections sit under headings of their own", () => {
    const changelog = ["# Changelog", ""];
    for (const v of ["2.1.0", "2.0.0", "1.9.0"])
      changelog.push(
        `## ${v}`,
        "",
        "### User",
        "- A change people see.",
        "",
        "### Agent",
        "- A change to the agent.",
        "",
      );
    const prompts = ["# Prompt library", ""];
    for (const ex of ["summarise", "classify"])
      prompts.push(`## Example: ${ex}`, "", "**User:** Do the thing.", "", "**Assistant:** Done.", "");
    for (const doc of [changelog.join("\n"), prompts.join("\n")]) {
      expect(chatShape(doc)).toBeUndefined();
      expect(() => detectFormat(doc, "NOTES.md")).toThrow(expect.objectContaining({ code: "UNKNOWN_FORMAT" }));
    }
  });

  it("still reads an export that heads each exchange with its number or its time", () => {
    for (const head of [(n: number) => `## Turn ${n}`, (n: number) => `## 2025-03-0${n} 10:00`]) {
      const text = [1, 2, 3].flatMap((n) => [
        head(n),
        "",
        "### User",
        `question ${n}`,
        "",
        "### Assistant",
        `answer ${n}`,
        "",
      ]);
      expect(detectFormat(text.join("\n"))).toBe("markdown-chat");
      const t = parseText(text.join("\n"), "markdown-chat");
      expect(t.turns.filter((x) => x.role === "user").map((x) => x.text)).toEqual([
        "question 1",
        "question 2",
        "question 3",
      ]);
    }
  });
});

describe("markdown chat reasoning", () => {
  it("leaves the assistant's reasoning out and keeps a person's message that writes the tags", () => {
    const ask = "Plan inside <thinking>list the risky files first</thinking> and then answer.";
    const text = [
      "## User",
      ask,
      "## Assistant",
      "<thinking>the person wants a plan</thinking>",
      "Here is the plan.",
      "## User",
      "Go on.",
      "## Assistant",
      "Done.",
    ].join("\n");
    const t = parseText(text, "markdown-chat");
    expect(t.turns.find((x) => x.role === "user")?.text).toBe(ask);
    expect(t.turns.find((x) => x.role === "assistant")?.text).toBe("Here is the plan.");
  });

  it("leaves a reply with no reasoning in it exactly as written", () => {
    const reply = "Steps:\n\n\n1. build\n\n\n\n2. test";
    expect(withoutReasoning(reply)).toBe(reply);
  });
});
