// compress_context reads only inside the client's roots, the project, or the agents' transcript folders.
import { copyFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { describe, expect, it } from "vitest";

import { checkReadable } from "../../src/project/confine.js";
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
      expect(textOf(outside)).toMatch(/^OUTSIDE_ROOTS: .*messages\.json lies outside what memcards may read/);
      expect(textOf(outside)).toContain(`this client's roots (${root})`);
      const inside = await c.client.callTool({ name: "compress_context", arguments: { transcript_path: "chat.json" } });
      expect(inside.isError, textOf(inside)).toBeFalsy();
    } finally {
      await c.close();
    }
  });

  it("allows the agents' own transcript folders, and checks even when the client gives no roots", () => {
    const opts = { root: "/srv/p", roots: ["/srv/p"], home: "/home/u" };
    // Paths that do not exist: allowed ones are NOT_FOUND, the rest OUTSIDE_ROOTS.
    expect(() => checkReadable("/home/u/.claude/projects/-srv-p/s.jsonl", opts)).toThrow(/^transcript not found/);
    expect(() => checkReadable("/home/u/.codex/sessions/2026/01/01/rollout-x.jsonl", opts)).toThrow(/not found/);
    expect(() => checkReadable("~/.codex/sessions/x.jsonl", opts)).toThrow(/not found: \/home\/u\/\.codex/);
    expect(() => checkReadable("/home/u/.ssh/id_rsa", opts)).toThrow(/outside what memcards may read/);
    expect(() => checkReadable("../other/x.jsonl", opts)).toThrow(/outside/);
    expect(() => checkReadable("/etc/x.jsonl", { ...opts, roots: [] })).toThrow(/outside/);
  });
});
