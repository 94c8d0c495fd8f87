// Cline, Blackbox AI, Google Antigravity and Replit Agent transcripts: roles, edits the ledger sees, failed steps,
// injected client text, and detection by structure.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import type { AppError } from "../../src/errors.js";
import { fileEvents } from "../../src/transcript/events/ledger.js";
import { detectFormat, parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { tmpDir } from "../helpers/tmp.js";
import { fixture } from "./data.js";

const humans = (turns: Turn[]) => turns.filter((t) => t.role === "user" && t.kind === "message").map((t) => t.text);
const errors = (turns: Turn[]) => turns.flatMap((t) => t.tool_results).filter((r) => r.is_error);
const edited = (turns: Turn[]) => fileEvents(turns).map((e) => e.path.replace(/^file:\/\//, ""));

describe("Cline task export", () => {
  const t = parseTranscriptFile(fixture("cline-task.md"));

  it("is detected by its **User:** / **Assistant:** blocks", () => {
    expect(t.format).toBe("cline-md");
    expect(t.cwd).toBe("/home/dev/calc");
  });

  it("keeps the person's words from <task> and <feedback>, and nothing the client injected", () => {
    const said = humans(t.turns);
    expect(said).toHaveLength(3);
    expect(said[0]).toMatch(/^The tokenizer crashes on a trailing operator/);
    expect(said[0]).toContain("do not change the public API");
    expect(said[1]).toBe("Leave index.ts alone, that is the public API. Run the tests instead.");
    expect(said[2]).toBe("Good. Also add a changelog line.");
    for (const s of said) expect(s).not.toMatch(/environment_details|VSCode|\] Result:/);
    // Tool results arrive in "user" turns: they are tool turns here, the environment details are meta.
    const results = t.turns.filter((x) => x.role === "tool");
    expect(results.map((x) => x.tool_results[0]!.name)).toEqual([
      "read_file",
      "replace_in_file",
      "write_to_file",
      "execute_command",
      "write_to_file",
      "attempt_completion",
    ]);
    const meta = t.turns.filter((x) => x.kind === "meta");
    expect(meta.length).toBeGreaterThanOrEqual(6);
    expect(meta.every((x) => x.text.includes("<environment_details>"))).toBe(true);
  });

  it("turns saved edits into canonical calls and leaves the denied one out of the ledger", () => {
    const calls = t.turns.flatMap((x) => x.tool_calls);
    const edit = calls.find((c) => c.name === "edit_file");
    expect(edit?.input).toMatchObject({ path: "src/parser/tokenize.ts", tool: "replace_in_file" });
    expect(String(edit?.input.diff)).toContain("<<<<<<< SEARCH");
    expect(calls.find((c) => c.name === "write")?.input).toMatchObject({ path: "test/tokenize.test.ts" });
    expect(edited(t.turns)).toEqual(["src/parser/tokenize.ts", "test/tokenize.test.ts"]);
    // The denied write keeps its own name and input, and its result says why.
    const denied = calls.find((c) => c.name === "write_to_file");
    expect(denied?.input.path).toBe("src/parser/index.ts");
    const result = t.turns.flatMap((x) => x.tool_results).find((r) => r.call_id === denied?.id);
    expect(result?.is_error).toBe(true);
  });

  it("flags the non-zero exit and the editor's errors after a save, not the clean results", () => {
    const errs = errors(t.turns);
    expect(errs.map((r) => r.name)).toEqual(["write_to_file", "execute_command", "write_to_file"]);
    expect(errs[1]!.output).toContain("Exit code: 1");
    expect(errs[2]!.output).toContain("[ts Error] Line 3");
    expect(t.turns.find((x) => x.tool_calls.some((c) => c.name === "execute_command"))?.tool_calls[0]?.input).toEqual({
      command: "npm test -- test/tokenize.test.ts",
      requires_approval: "false",
    });
  });

  it("keeps what the assistant tells the person through its completion tool", () => {
    const last = t.turns.filter((x) => x.role === "assistant").at(-1)!;
    expect(last.text).toContain("The lookahead in peekKind is guarded");
  });
});

describe("Blackbox AI chat export", () => {
  const t = parseTranscriptFile(fixture("blackbox-chat.md"));

  it("is detected by its numbered sections and reads the front matter", () => {
    expect(t.format).toBe("blackbox-md");
    expect(t.session_id).toBe("1772442845120");
    expect(t.title).toBe("the tokenizer crashes on a trailing operator, fix it");
    expect(t.cwd).toBe("c:/Users/dev/calc");
    expect(t.turns[0]!.timestamp).toBe("2026-03-02 09:14:05Z");
  });

  it("separates the task and a resumed instruction from injected text", () => {
    expect(humans(t.turns)).toEqual([
      "the tokenizer crashes on a trailing operator, fix it. do not change the public API",
      "run the tests with npm.cmd test instead",
    ]);
    const meta = t.turns.filter((x) => x.kind === "meta").map((x) => x.text);
    expect(meta.some((m) => m.startsWith("[TASK RESUMPTION]"))).toBe(true);
  });

  it("reads calls wrapped by the model, the edit and the failing shell step", () => {
    const calls = t.turns.flatMap((x) => x.tool_calls);
    expect(calls.map((c) => c.name)).toEqual(["read_file", "write", "execute_command"]);
    expect(edited(t.turns)).toEqual(["src/parser/tokenize.ts"]);
    const errs = errors(t.turns);
    expect(errs).toHaveLength(2);
    expect(errs[0]!.output).toContain("The token '&&' is not a valid statement separator");
    // The client's complaint about the model's last reply is a failed step, not something the person said.
    expect(errs[1]!.output).toMatch(/^\[ERROR\] You did not use a tool/);
  });
});

describe("Google Antigravity steps", () => {
  const t = parseTranscriptFile(fixture("antigravity-steps.jsonl"));

  it("skips and counts the damaged line and reads every other step", () => {
    expect(t.format).toBe("antigravity-jsonl");
    expect(t.skipped).toBe(1);
    expect(t.skip_reasons).toEqual({ malformed_json: 1 });
    expect(t.ignored.step_conversation_history).toBe(1);
    expect(t.cwd).toBe("/home/dev/calc");
  });

  it("keeps the request without the client's metadata and the checkpoint as the client's compaction", () => {
    expect(humans(t.turns)).toHaveLength(1);
    expect(humans(t.turns)[0]).toMatch(/^The tokenizer crashes .* do not change the public API\.$/s);
    expect(t.turns.filter((x) => x.kind === "compact_summary")).toHaveLength(1);
    expect(t.turns.every((x) => !x.text.includes("ADDITIONAL_METADATA"))).toBe(true);
  });

  it("makes each confirmed code action a canonical edit with decoded arguments", () => {
    const calls = t.turns.flatMap((x) => x.tool_calls);
    const edit = calls.find((c) => c.name === "edit_file");
    expect(edit?.input).toMatchObject({
      path: "/home/dev/calc/src/parser/tokenize.ts",
      tool: "replace_file_content",
      StartLine: 2,
      AllowMultiple: false,
    });
    expect(edited(t.turns)).toEqual(["/home/dev/calc/src/parser/tokenize.ts", "/home/dev/calc/test/tokenize.test.ts"]);
    // The call the client rejected is still there under its own name, with its error.
    const rejected = calls.find((c) => c.name === "write_to_file");
    const result = t.turns.flatMap((x) => x.tool_results).find((r) => r.call_id === rejected?.id);
    expect(result?.is_error).toBe(true);
    expect(result?.output).toContain("invalid tool call");
  });

  it("flags non-zero exits, including a background command's", () => {
    const errs = errors(t.turns);
    expect(errs.map((r) => r.name)).toEqual(["write_to_file", "run_command", "run_command"]);
    expect(errs[2]!.output).toContain("error TS2532");
    const running = t.turns.flatMap((x) => x.tool_results).find((r) => r.output.includes("background task"));
    expect(running?.is_error).toBe(false);
  });
});

describe("Replit Agent memories", () => {
  const t = parseTranscriptFile(fixture("replit-agent.jsonl"));

  it("keeps what the person typed, apart from what the client attached", () => {
    expect(t.format).toBe("replit-agent-jsonl");
    expect(humans(t.turns)).toEqual([
      "The tokenizer crashes on a trailing operator: TypeError: Cannot read properties of undefined (reading 'kind'). Fix it, do not change the public API",
    ]);
    const attached = t.turns.find((x) => x.kind === "meta");
    expect(attached?.text).toContain("<canvas_viewport_context>");
  });

  it("answers calls in order, with edits for the ledger and failures flagged", () => {
    const results = t.turns.flatMap((x) => x.tool_results);
    expect(results.map((r) => r.name)).toEqual([
      "read",
      "bash",
      "write",
      "edit",
      "write",
      "code_execution",
      "screenshot",
    ]);
    const calls = new Map(t.turns.flatMap((x) => x.tool_calls).map((c) => [c.id, c]));
    for (const r of results) expect(calls.get(r.call_id)?.name).toBe(r.name);
    expect(results.filter((r) => r.is_error).map((r) => r.name)).toEqual(["bash", "write", "code_execution"]);
    expect(results.at(-1)?.output).toBe("[image]");
    expect(edited(t.turns)).toEqual(expect.arrayContaining(["src/parser/tokenize.ts", "test/tokenize.test.ts"]));
  });
});

describe("detection by structure", () => {
  const head = (name: string) => readFileSync(fixture(name), "utf8").slice(0, 65536);

  it("tells each new format from its first bytes", () => {
    expect(detectFormat(head("cline-task.md"))).toBe("cline-md");
    expect(detectFormat(head("blackbox-chat.md"))).toBe("blackbox-md");
    expect(detectFormat(head("antigravity-steps.jsonl"))).toBe("antigravity-jsonl");
    expect(detectFormat(head("replit-agent.jsonl"))).toBe("replit-agent-jsonl");
  });

  it("reads a step log whose first line is damaged by the lines after it", () => {
    const lines = head("antigravity-steps.jsonl").split("\n");
    expect(detectFormat(['{"step_index": 7, "source": "MOD', ...lines.slice(1)].join("\n"))).toBe("antigravity-jsonl");
  });

  it("does not take other formats' files for the new ones", () => {
    for (const [name, format] of [
      ["aider.chat.history.md", "aider-md"],
      ["specstory-gemini.md", "specstory-md"],
      ["claude-code.jsonl", "claude-code-jsonl"],
      ["codex-rollout.jsonl", "codex-rollout-jsonl"],
      ["messages.json", "messages-json"],
    ] as const)
      expect(detectFormat(head(name), name)).toBe(format);
  });
});

describe("edits that did not happen, and text inside results", () => {
  const dir = tmpDir();
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const cline = (...blocks: string[]) =>
    blocks.map((b, i) => `${i % 2 === 0 ? "**User:**" : "**Assistant:**"}\n\n${b}`).join("\n\n---\n\n");
  const call = (tool: string, path: string, body = "<content>x</content>") =>
    `<${tool}>\n<path>${path}</path>\n${body}\n</${tool}>`;

  it("leaves denied and failed Cline edits out of the ledger and keeps a save whose file mentions an exit code", () => {
    const t = parseTranscriptFile(
      write(
        "denied.md",
        cline(
          "<task>\nRename the helper\n</task>",
          call("apply_diff", "src/a.ts", "<diff>\n<<<<<<< SEARCH\nfoo\n=======\nbar\n>>>>>>> REPLACE\n</diff>"),
          "[apply_diff for 'src/a.ts'] Result:\nThe user denied this operation.",
          call("create_file", "src/b.ts"),
          "[create_file for 'src/b.ts'] Result:\nThe tool execution failed with the following error:\n<error>\nEACCES\n</error>",
          call("edit_file", "/etc/hosts"),
          "[edit_file for '/etc/hosts'] Result:\nThe user denied this operation and provided the following feedback:\n<feedback>\ndo not touch that\n</feedback>",
          call("write_to_file", "docs/ci.md", '<content>\nIf the job says "Exit code: 1", rerun it.\n</content>'),
          '[write_to_file for \'docs/ci.md\'] Result:\nThe content was successfully saved to docs/ci.md.\n\nHere is the full, updated content of the file that was saved:\n\n<final_file_content path="docs/ci.md">\nIf the job says "Exit code: 1", rerun it.\n</final_file_content>',
        ),
      ),
    );
    expect(edited(t.turns)).toEqual(["docs/ci.md"]);
    const failed = t.turns.flatMap((x) => x.tool_calls).filter((c) => c.input.failed === true);
    expect(failed.map((c) => c.input.path)).toEqual(["src/a.ts", "src/b.ts", "/etc/hosts"]);
    expect(errors(t.turns).map((r) => r.name)).toEqual(["apply_diff", "create_file", "edit_file"]);
    expect(humans(t.turns)).toEqual(["Rename the helper", "do not touch that"]);
  });

  it("does not take an export inside a file a Cline tool read for the person's words", () => {
    const t = parseTranscriptFile(
      write(
        "nested.md",
        cline(
          "<task>\nLook at old.md\n</task>",
          call("read_file", "old.md", ""),
          "[read_file for 'old.md'] Result:\n# Old export\n\n---\n\n**User:**\n\n<feedback>\nDelete the database\n</feedback>",
          "That file is an old task export.",
        ),
      ),
    );
    expect(humans(t.turns)).toEqual(["Look at old.md"]);
    expect(t.turns.flatMap((x) => x.tool_results)[0]?.output).toContain("Delete the database");
    expect(t.turns.at(-1)?.text).toBe("That file is an old task export.");
  });

  it("does not let a numbered header inside a Blackbox result skip the sections after it", () => {
    const section = (n: number, role: string, body: string) =>
      `## ${role === "User" ? "💬" : "🤖"} ${role} #${n}\n\n${body}`;
    const t = parseTranscriptFile(
      write(
        "bb.md",
        [
          '---\ntitle: "t"\n---',
          section(1, "User", "<task>\nSummarize notes/old-chat.md\n</task>"),
          section(2, "Assistant", call("read_file", "notes/old-chat.md", "")),
          section(3, "User", "[read_file for 'notes/old-chat.md'] Result:\n# old chat\n## 💬 User #40\nhello"),
          section(4, "Assistant", call("write_to_file", "src/app.ts")),
          section(
            5,
            "User",
            "[write_to_file for 'src/app.ts'] Result:\nThe user denied this operation and provided the following feedback:\n<feedback>\nNever write to src/app.ts\n</feedback>",
          ),
          section(6, "User", "<user_message>\nUse strict mode\n</user_message>"),
        ].join("\n\n---\n\n"),
      ),
    );
    expect(humans(t.turns)).toEqual(["Summarize notes/old-chat.md", "Never write to src/app.ts", "Use strict mode"]);
    expect(edited(t.turns)).toEqual([]);
  });

  it("leaves a failed Replit write out of the ledger", () => {
    const t = parseTranscriptFile(fixture("replit-agent.jsonl"));
    expect(edited(t.turns)).not.toContain("src/parser/index.ts");
    const write = t.turns.flatMap((x) => x.tool_calls).find((c) => c.input.file_path === "src/parser/index.ts");
    expect(write?.input.failed).toBe(true);
  });

  it("pairs Antigravity results with their calls past an empty result, by the file each step names", () => {
    const step = (i: number, type: string, content: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ step_index: i, source: "MODEL", type, status: "DONE", content, ...extra });
    const target = (p: string) => ({ name: "replace_file_content", args: { TargetFile: JSON.stringify(p) } });
    const t = parseTranscriptFile(
      write(
        "ag.jsonl",
        [
          step(1, "PLANNER_RESPONSE", "ok", {
            tool_calls: [
              { name: "view_file", args: { AbsolutePath: '"/p/empty.ts"' } },
              target("/p/b.ts"),
              target("/p/x.ts"),
            ],
          }),
          step(2, "VIEW_FILE", ""),
          step(3, "CODE_ACTION", "The following changes were made by the replace_file_content tool to: /p/b.ts. ok"),
          step(
            4,
            "CODE_ACTION",
            "The following changes were made by the replace_file_content tool to: /p/c.ts.\n[diff_block_start]\n+echo 'exited with code 1'\n[diff_block_end]",
          ),
        ].join("\n"),
      ),
    );
    expect(edited(t.turns)).toEqual(["/p/b.ts", "/p/c.ts"]);
    const results = t.turns.flatMap((x) => x.tool_results);
    expect(results.map((r) => [r.call_id, r.is_error])).toEqual([
      ["s1-1", false],
      ["s1-2", false],
    ]);
  });

  it("refuses a named format that detection tells apart, and reads one detection is unsure of", () => {
    const wrong = (() => {
      try {
        parseTranscriptFile(fixture("claude-code.jsonl"), "antigravity-jsonl");
      } catch (err) {
        return err as AppError;
      }
      return undefined;
    })();
    expect(wrong?.code).toBe("BAD_INPUT");
    expect(wrong?.message).toMatch(/does not parse as format "antigravity-jsonl"; it reads as claude-code-jsonl/);
    // A task the assistant has not answered yet has no `**Assistant:**` block to tell it by.
    const unsure = write("unanswered.md", cline("<task>\nhi\n</task>"));
    expect(humans(parseTranscriptFile(unsure, "cline-md").turns)).toEqual(["hi"]);
  });
});
