// Distillation runs in a worker after compress_context returns: tool calls are served meanwhile, the units land.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { createLogger } from "../../src/log.js";
import { createDistiller } from "../../src/memory/distiller.js";
import { connect, textOf } from "../helpers/mcp.js";
import { claudeCodeSession, longSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";
import { pollUntil } from "../helpers/wait.js";

type Structured = Record<string, unknown>;

describe("background distillation", () => {
  it("does not hold up the compression result or a concurrent tool call, and its units arrive", async () => {
    const root = tmpDir();
    // A long session (about 100k tokens): distilling it takes the worker a while.
    const text = claudeCodeSession(longSession(200));
    const path = join(root, "session.jsonl");
    writeFileSync(path, text);
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const [res, during] = await Promise.all([
        c.client.callTool({ name: "compress_context", arguments: { transcript_path: path } }),
        c.client.callTool({ name: "search_memory", arguments: { query: "sitemap" } }),
      ]);
      expect(res.isError).toBeFalsy();
      expect(during.isError).toBeFalsy();
      const s = res.structuredContent as Structured;
      expect(s.memories_queued as number).toBeGreaterThan(100);
      expect(textOf(res)).toMatch(/turns? (is|are) being distilled in the background/);

      // Right after the summary came back the worker is still distilling, and status is answered meanwhile.
      const status = await c.client.callTool({ name: "status", arguments: {} });
      const d = (status.structuredContent as Structured).distillation as Record<string, number>;
      expect(d.pending).toBe(1);
      expect(d.done).toBe(0);

      const after = await pollUntil(
        async () =>
          ((await c.client.callTool({ name: "status", arguments: {} })).structuredContent as Structured)
            .distillation as Record<string, number>,
        (x) => (x.pending ?? 0) === 0,
      );
      expect(after).toMatchObject({ pending: 0, done: 1, failed: 0 });
      expect(after.added).toBeGreaterThan(0);
      const found = await c.client.callTool({ name: "search_memory", arguments: { query: "sitemap", limit: 5 } });
      expect(found.isError).toBeFalsy();
      expect((found.structuredContent as { hits: unknown[] }).hits.length).toBeGreaterThan(0);
    } finally {
      await c.close();
    }
  }, 60_000);

  it("counts a job the worker could not run as failed, logs the worker's error code, and still closes", async () => {
    const lines: string[] = [];
    const d = createDistiller(
      "/proc/no-such-dir/memcards.db",
      createLogger("error", (l) => lines.push(l)),
    );
    d.enqueue(1);
    expect(d.pending()).toBe(1);
    await d.idle();
    expect(d.stats()).toEqual({ done: 0, failed: 1, added: 0 });
    // The store could not be opened in the worker: its code crosses the thread, not a bare message.
    expect(lines).toEqual([expect.stringMatching(/^memcards error: distillation 1 failed: DB_OPEN_FAILED: /)]);
    await d.close();
    expect(d.pending()).toBe(0);
  });
});
