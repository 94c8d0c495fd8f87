// A scripted session over stdio with the SDK client: index, compress, cards, outcome; restart; all still there.
// Also: what tools/list costs in every session stays small.
import { cpSync, realpathSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";

import { measureToolSize } from "../../bench/tool-size.js";
import { resolveConfig } from "../../src/config.js";
import { cliPath } from "../helpers/cli.js";
import { textOf } from "../helpers/mcp.js";
import { inClaudeProjects, tmpDir } from "../helpers/tmp.js";
import { pollUntil } from "../helpers/wait.js";
import { POLYGLOT } from "../repo/fixture.js";
import { fixture } from "../transcript/data.js";

function env(extra: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return { ...base, ...extra };
}

async function start(root: string, home: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, "serve", "--root", root, "--embedder", "offline"],
    env: env({ HOME: home, MEMCARDS_HOME: home }),
    stderr: "pipe",
  });
  const client = new Client({ name: "session-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("a scripted session over stdio", () => {
  it("indexes, compresses, serves cards, records an outcome, and finds it all again after a restart", async () => {
    const root = join(realpathSync(tmpDir()), "repo");
    cpSync(POLYGLOT, root, { recursive: true });
    const home = tmpDir();
    let client = await start(root, home);
    let cardId: string;
    let sessionId: string;
    try {
      const built = await client.callTool({ name: "build_context_graph", arguments: {} }, undefined, {
        timeout: 120_000,
      });
      expect(textOf(built)).toMatch(/48 files/);
      const c = await client.callTool({
        name: "compress_context",
        arguments: { transcript_path: inClaudeProjects(home, fixture("claude-code.jsonl")) },
      });
      expect(c.isError, textOf(c)).toBeFalsy();
      sessionId = (c.structuredContent as { session_id: string }).session_id;
      const cards = await client.callTool({
        name: "get_memory_cards",
        arguments: { task: "Circle.area in pyproj/shapes/geometry.py is wrong", session_id: sessionId },
      });
      cardId = (cards.structuredContent as { cards: { id: string }[] }).cards[0]!.id;
      const rec = await client.callTool({ name: "record_outcome", arguments: { helped: [cardId] } });
      expect(textOf(rec)).toBe("Recorded 1 outcome.");
      // Distillation runs in the background: the restart below comes once it has finished, however busy the machine.
      const pending = async () =>
        (
          (await client.callTool({ name: "status", arguments: {} })).structuredContent as {
            distillation: { pending?: number };
          }
        ).distillation.pending ?? 0;
      expect(await pollUntil(pending, (n) => n === 0)).toBe(0);
    } finally {
      await client.close();
    }
    client = await start(root, home);
    try {
      const s = await client.callTool({ name: "get_summary", arguments: { session_id: sessionId } });
      expect(textOf(s), textOf(s)).toContain(`# Session ${sessionId} — compression #1`);
      // The archive of past turns and the last session's open work outlive the restart.
      const mem = await client.callTool({
        name: "search_memory",
        arguments: { query: "eventBus Redis tests", include_raw: true },
      });
      expect(textOf(mem)).toContain("the eventBus tests use a real Redis instance");
      const brief = await client.readResource({ uri: "memcards://project/brief" });
      // Where the last session stood: its last request (the earlier request's todo list was left for it).
      expect((brief.contents[0] as { text: string }).text).toContain(
        "fails with TypeError: Cannot read properties of undefined (reading 'kind')",
      );
      const card = await client.readResource({ uri: `memcards://cards/${cardId}` });
      expect((card.contents[0] as { text: string }).text).toContain(cardId);
      const again = await client.callTool({
        name: "get_memory_cards",
        arguments: { task: "Circle.area in pyproj/shapes/geometry.py is wrong", verbose: true },
      });
      const comps = (again.structuredContent as { components: { id: string; outcome_uplift: number }[] }).components;
      expect(comps.find((k) => k.id === cardId)).toBeDefined();
      // Nothing needed re-indexing.
      const status = await client.callTool({ name: "build_context_graph", arguments: {} }, undefined, {
        timeout: 120_000,
      });
      expect(textOf(status)).toMatch(/0 parsed, 48 unchanged/);
    } finally {
      await client.close();
    }
  }, 300_000);

  it("keeps tools/list and the instructions under 5,300 tokens", async () => {
    const config = resolveConfig({ root: tmpDir(), embedder: "offline" }, { MEMCARDS_HOME: tmpDir() });
    const s = await measureToolSize(config, "test");
    expect(s.tools.map((t) => t.name)).toContain("get_memory_cards");
    expect(s.total).toBeLessThan(5300);
    expect(s.instructions).toBeGreaterThan(50);
  });
});
