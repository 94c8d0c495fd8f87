// Parsing every supported format from real transcripts and committed fixtures; bad input gets a clear error.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { AppError } from "../../src/errors.js";
import { fileEvents } from "../../src/transcript/events/ledger.js";
import { detectFormat, parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { tmpDir } from "../helpers/tmp.js";

function failure(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected an AppError");
}

describe("Claude Code JSONL edge cases", () => {
  const base = {
    parentUuid: null,
    isSidechain: false,
    sessionId: "s1",
    cwd: "/repo",
    timestamp: "2026-01-01T00:00:00Z",
  };
  const user = (uuid: string, content: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ ...base, type: "user", uuid, message: { role: "user", content }, ...extra });
  const asst = (uuid: string, content: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ ...base, type: "assistant", uuid, message: { role: "assistant", content }, ...extra });

  it("dedupes by uuid, marks sidechains and compact summaries, takes the summary title, reports a cut-off tail", () => {
    const dir = tmpDir();
    const path = join(dir, "s1.jsonl");
    const lines = [
      JSON.stringify({ type: "summary", summary: "Fix the tokenizer", leafUuid: "u3" }),
      user("u1", "Fix the crash in src/tok.ts. Do not change the public API."),
      asst("u2", [
        {
          type: "tool_use",
          id: "c1",
          name: "Edit",
          input: { file_path: "/repo/src/tok.ts", old_string: "a", new_string: "b" },
        },
      ]),
      user("u3", [{ type: "tool_result", tool_use_id: "c1", content: "The file /repo/src/tok.ts has been updated." }]),
      user("u1", "Fix the crash in src/tok.ts. Do not change the public API."),
      asst("u4", [{ type: "text", text: "Searching." }], { isSidechain: true }),
      JSON.stringify({
        ...base,
        type: "system",
        subtype: "compact_boundary",
        uuid: "u5",
        content: "Conversation compacted",
      }),
      user("u6", "This session is being continued from a previous conversation.", { isCompactSummary: true }),
      asst("u7", [
        {
          type: "tool_use",
          id: "c2",
          name: "TodoWrite",
          input: {
            todos: [
              { content: "Add a regression test", status: "pending", activeForm: "Adding" },
              { content: "Fix tok.ts", status: "completed", activeForm: "Fixing" },
            ],
          },
        },
      ]),
    ];
    writeFileSync(path, `${lines.join("\n")}\n`);
    appendFileSync(path, '{"type":"user","uuid":"u8","message":{"role":"us');
    const t = parseTranscriptFile(path);
    expect(t.format).toBe("claude-code-jsonl");
    expect(t.title).toBe("Fix the tokenizer");
    expect(t.ignored.duplicate_uuid).toBe(1);
    expect(t.partial_tail).toBe(true);
    expect(t.skip_reasons).toEqual({ partial_last_line: 1 });
    expect(t.turns.find((x) => x.id === "u4")?.sidechain).toBe(true);
    expect(t.turns.find((x) => x.id === "u5")?.kind).toBe("meta");
    expect(t.turns.find((x) => x.id === "u6")?.kind).toBe("compact_summary");
    expect(t.turns.find((x) => x.id === "u3")?.role).toBe("tool");
    expect(t.turns.find((x) => x.id === "u3")?.tool_results[0]?.name).toBe("Edit");
    expect(fileEvents(t.turns)).toEqual([{ path: "/repo/src/tok.ts", op: "edited: `a` → `b`", turn: "u2" }]);
  });

  it("counts malformed lines without failing", () => {
    const path = join(tmpDir(), "bad.jsonl");
    writeFileSync(path, `${user("a", "hello there")}\nnot json at all\n{"broken": \n${user("b", "second message")}\n`);
    const t = parseTranscriptFile(path);
    expect(t.turns.map((x) => x.id)).toEqual(["a", "b"]);
    expect(t.skip_reasons).toEqual({ malformed_json: 2 });
    expect(t.partial_tail).toBe(false);
  });
});

describe("bad input", () => {
  it("names the problem: missing, directory, empty, binary, unknown format", () => {
    const dir = tmpDir();
    expect(failure(() => parseTranscriptFile(join(dir, "nope.jsonl"))).code).toBe("NOT_FOUND");
    mkdirSync(join(dir, "d"));
    expect(failure(() => parseTranscriptFile(join(dir, "d"))).message).toMatch(/is a directory/);
    writeFileSync(join(dir, "empty.md"), "");
    expect(failure(() => parseTranscriptFile(join(dir, "empty.md"))).message).toMatch(/is empty/);
    writeFileSync(join(dir, "bin.md"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 3]));
    const bin = failure(() => parseTranscriptFile(join(dir, "bin.md")));
    expect(bin.code).toBe("UNKNOWN_FORMAT");
    expect(bin.message).toMatch(/binary/);
    writeFileSync(join(dir, "notes.txt"), "just some notes\nwith lines\n");
    const unknown = failure(() => parseTranscriptFile(join(dir, "notes.txt")));
    expect(unknown.code).toBe("UNKNOWN_FORMAT");
    expect(unknown.message).toMatch(/Claude Code JSONL.*aider/);
    writeFileSync(join(dir, "bad.json"), '[{"role": "user", "content": ');
    expect(failure(() => parseTranscriptFile(join(dir, "bad.json"))).code).toBe("UNKNOWN_FORMAT");
  });

  it("refuses a named format the file is not in, and keeps the place of a real parse error", () => {
    const dir = tmpDir();
    const aider = join(dir, "history.md");
    writeFileSync(aider, "# aider chat started at 2025-01-01 10:00:00\n\n#### fix it\n\nDone.\n");
    const wrong = failure(() => parseTranscriptFile(aider, "claude-code-jsonl"));
    expect(wrong.code).toBe("BAD_INPUT");
    expect(wrong.message).toBe(
      `${aider} does not parse as format "claude-code-jsonl"; it reads as aider-md: pass format "aider-md" or leave format out`,
    );
    const json = join(dir, "chat.json");
    writeFileSync(json, '[{"role": "user", "content": ');
    expect(failure(() => parseTranscriptFile(json, "swe-agent-traj")).message).toMatch(
      /does not parse as format "swe-agent-traj"; it reads as messages-json/,
    );
    // The format it is in: the parse error itself, with its place.
    const same = failure(() => parseTranscriptFile(json, "messages-json"));
    expect(same.code).toBe("UNKNOWN_FORMAT");
    expect(same.message).toMatch(/cannot read .* as messages-json: .*line 1/);
    writeFileSync(join(dir, "notes.txt"), "just some notes\n");
    expect(failure(() => parseTranscriptFile(join(dir, "notes.txt"), "cline-md")).message).toMatch(
      /does not parse as format "cline-md"; its format was not recognized either \(expected .*Replit Agent JSONL/,
    );
  });

  it("detects formats from their first bytes", () => {
    expect(detectFormat('{"timestamp":"t","type":"session_meta","payload":{}}\n')).toBe("codex-rollout-jsonl");
    expect(detectFormat('{"type":"user","uuid":"x","message":{}}\n')).toBe("claude-code-jsonl");
    expect(detectFormat('[{"role":"user","content":"hi"}]')).toBe("messages-json");
    expect(detectFormat('{\n  "environment": "main",\n  "trajectory": []')).toBe("swe-agent-traj");
    expect(detectFormat("# Codex Conversation Export\n\n## Metadata\n")).toBe("codex-export-md");
    expect(detectFormat("<!-- Generated by SpecStory -->\n\n_**User**_\n\nhi\n")).toBe("specstory-md");
    expect(detectFormat("\n# aider chat started at 2025-01-01 10:00:00\n\n#### fix it\n")).toBe("aider-md");
  });
});
