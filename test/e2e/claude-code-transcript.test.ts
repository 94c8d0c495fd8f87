// The transcript a scripted session left in the pinned Claude Code version (committed as a fixture, temp paths
// normalized to /home/user) parses with the Claude Code reader: its turns, tool calls, the failing run, the edits.
import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { fileEvents } from "../../src/transcript/events/ledger.js";
import { detectFormat, parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { fixture } from "../transcript/data.js";

const FILE = fixture("claude-code-2.1.328.jsonl");

describe("a transcript written by Claude Code 2.1.328", () => {
  const text = readFileSync(FILE, "utf8");

  it("is what that version wrote, with no temp paths or keys left in", () => {
    const versions = new Set([...text.matchAll(/"version":"([^"]+)"/g)].map((m) => m[1]));
    expect(versions).toEqual(new Set(["2.1.328"]));
    expect(text).not.toMatch(/\/tmp\/|sk-ant-|127\.0\.0\.1/);
    expect(detectFormat(text.slice(0, 4096), FILE)).toBe("claude-code-jsonl");
  });

  it("parses into the session's turns, with the client's bookkeeping records ignored", () => {
    const t = parseTranscriptFile(FILE);
    expect(t.format).toBe("claude-code-jsonl");
    expect(t.skipped).toBe(0);
    expect(t.partial_tail).toBe(false);
    expect(t.cwd).toBe("/home/user/project");
    expect(t.session_id).toMatch(/^[0-9a-f-]{36}$/);
    // Records this version adds besides the conversation are counted as ignored, never as turns.
    expect(t.ignored).toMatchObject({ attachment: 10, "api-request": 6 });
    expect(t.turns.map((x) => x.role)).toEqual([
      "user",
      "assistant",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(t.turns[0]!.text).toContain("do not change the public API");
    expect(t.turns.flatMap((x) => x.tool_calls.map((c) => c.name))).toEqual(["Read", "Bash", "Edit", "Write", "Bash"]);
    const results = t.turns.flatMap((x) => x.tool_results);
    expect(results.map((r) => [r.name, r.is_error])).toEqual([
      ["Read", false],
      ["Bash", true],
      ["Edit", false],
      ["Write", false],
      ["Bash", false],
    ]);
    expect(t.turns.at(-1)!.text).toMatch(/^Fixed: tokenize/);
  });

  it("yields the edit and the write as file events", () => {
    const t = parseTranscriptFile(FILE);
    expect(fileEvents(t.turns).map((e) => [e.path, e.op])).toEqual([
      ["/home/user/project/src/parser/tokenize.ts", "edited: `({ kind: t.kind })` → `({ kind: 'word', text: t })`"],
      ["/home/user/project/test/tokenize.test.ts", "written"],
    ]);
  });
});
