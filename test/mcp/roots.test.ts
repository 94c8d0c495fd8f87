// With MCP roots, compress_context reads only inside them, the project, or the agents' transcript folders.
import { copyFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { describe, expect, it } from "vitest";

import { checkReadable } from "../../src/mcp/paths.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import { fixture } from "../transcript/data.js";

describe("roots", () => {
  it("refuses a transcript outside the client's roots, reads one inside", async () => {
    const root = realpathSync(tmpDir());
    copyFileSync(fixture("messages.json"), join(root, "chat.json"));
    const c = await connect({
      env: { MEMCARDS_HOME: tmpDir() },
      flags: { embedder: "offline" },
      roots: [pathToFileURL(root).href],
    });
    try {
      const outside = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: fixture("messages.json") },
      });
      expect(outside.isError).toBe(true);
      expect(textOf(outside)).toMatch(/^OUTSIDE_ROOTS: .*messages\.json lies outside this client's roots/);
      const inside = await c.client.callTool({ name: "compress_context", arguments: { transcript_path: "chat.json" } });
      expect(inside.isError, textOf(inside)).toBeFalsy();
    } finally {
      await c.close();
    }
  });

  it("allows the agents' own transcript folders, and everything when the client gives no roots", () => {
    const opts = { root: "/work/p", roots: ["/work/p"], home: "/home/u" };
    expect(checkReadable("/home/u/.claude/projects/-work-p/s.jsonl", opts)).toBe(
      "/home/u/.claude/projects/-work-p/s.jsonl",
    );
    expect(checkReadable("/home/u/.codex/sessions/2026/01/01/rollout-x.jsonl", opts)).toMatch(/rollout-x\.jsonl$/);
    expect(() => checkReadable("/home/u/.ssh/id_rsa", opts)).toThrow(/outside this client's roots/);
    expect(() => checkReadable("../other/x.jsonl", opts)).toThrow(/outside/);
    expect(checkReadable("/etc/x.jsonl", { ...opts, roots: [] })).toBe("/etc/x.jsonl");
  });
});
