// compress_context, get_summary and the session summary resource through a real MCP client.
import { copyFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { countTokens } from "../../src/text/tokens.js";
import { connect, textOf } from "../helpers/mcp.js";
import { SESSION_FACTS, writeSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";
import { fixture } from "../transcript/data.js";

type Structured = Record<string, unknown>;

describe("compression tools over MCP", () => {
  it("compresses a transcript by path, stores it, and serves it back", async () => {
    const root = tmpDir();
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const tools = await c.client.listTools();
      const tool = tools.tools.find((t) => t.name === "compress_context");
      expect(tool?.annotations?.readOnlyHint).toBe(false);
      expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(["transcript_path", "messages", "session_id", "keep_recent", "budget_tokens", "focus"]),
      );

      const res = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: writeSession(root, "session.jsonl") },
      });
      expect(res.isError).toBeFalsy();
      const text = textOf(res);
      expect(text).toMatch(/^## Session Intent/);
      expect(text).toContain("## Files Modified");
      expect(text).toContain(SESSION_FACTS.file);
      expect(text).toMatch(/Page: \d+ tokens against a budget of \d+ \(summary \d+, recent messages \d+\)\./);
      expect(text).toMatch(/Probes: the draft held \d+% of \d+ facts checked; \d+ missing, 0 of them still missing/);
      const s = res.structuredContent as Structured;
      const stats = s.stats as Structured;
      expect(stats.ratio as number).toBeGreaterThanOrEqual(10);
      expect(typeof stats.probes_failed).toBe("number");
      // The structured part stays small: ids and numbers, not the summary again.
      expect(countTokens(JSON.stringify(s))).toBeLessThan(400);
      expect(countTokens(text)).toBeLessThan((stats.tokens_total_before as number) / 5);

      const got = await c.client.callTool({ name: "get_summary", arguments: {} });
      expect(textOf(got)).toContain(`# Session ${s.session_id as string} — compression #1`);
      const full = await c.client.callTool({ name: "get_summary", arguments: { full: true } });
      expect(textOf(full).length).toBeGreaterThan(textOf(got).length);

      const list = await c.client.listResources();
      const uri = list.resources.find((r) => r.uri.endsWith("/summary"))?.uri;
      expect(uri).toBe(`memcards://sessions/${encodeURIComponent(s.session_id as string)}/summary`);
      const read = await c.client.readResource({ uri: uri! });
      expect((read.contents[0] as { text: string }).text).toContain("## Next Steps");

      const bad = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: "no/such/file.jsonl" },
      });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/^NOT_FOUND: transcript not found: \/.*\/no\/such\/file\.jsonl/);
      const none = await c.client.callTool({ name: "get_summary", arguments: { session_id: "nope" } });
      expect(none.isError).toBe(true);
      expect(textOf(none)).toMatch(/^NOT_FOUND: no summary for session nope/);
    } finally {
      await c.close();
    }
  });

  it("refuses a named format the file is not in, and a session id it does not know", async () => {
    const root = tmpDir();
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const aider = join(root, ".aider.chat.history.md");
      copyFileSync(fixture("aider.chat.history.md"), aider);
      const wrong = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: aider, format: "claude-code-jsonl" },
      });
      expect(wrong.isError).toBe(true);
      expect(textOf(wrong)).toMatch(/^BAD_INPUT: .*does not parse as format "claude-code-jsonl"; it reads as aider-md/);
      // The same file with the format it is in, or none, compresses.
      const right = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: aider, format: "aider-md" },
      });
      expect(right.isError).toBeFalsy();
      const known = (right.structuredContent as Structured).session_id as string;

      const unknown = await c.client.callTool({ name: "compress_context", arguments: { session_id: "made-up-id" } });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/^NOT_FOUND: unknown session_id "made-up-id": known sessions \(newest first\): /);
      expect(textOf(unknown)).toContain(known);
      // A known session id still compresses (its recorded transcript).
      const again = await c.client.callTool({ name: "compress_context", arguments: { session_id: known } });
      expect(again.isError).toBeFalsy();
    } finally {
      await c.close();
    }
  });
});
