// build_context_graph and graph_neighbors through a real MCP client: progress, jobs, concurrency, watching.
import { appendFileSync } from "node:fs";
import { join } from "node:path";

import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";

import { syntheticRepo } from "../graph/synthetic.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import { pollUntil } from "../helpers/wait.js";
import { copyPolyglot } from "../repo/fixture.js";

type Structured = Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("graph tools over MCP", () => {
  it("builds with progress notifications, then answers graph_neighbors", async () => {
    const root = copyPolyglot();
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const progress: number[] = [];
      const res = await c.client.callTool({ name: "build_context_graph", arguments: {} }, CallToolResultSchema, {
        onprogress: (p) => progress.push(p.progress),
        timeout: 120_000,
      });
      expect(res.isError).toBeFalsy();
      expect(textOf(res)).toMatch(/Indexed .* 48 files, 48 parsed/);
      const s = res.structuredContent as Structured;
      expect(s.state).toBe("done");
      expect((s.counts as { edges: Record<string, number> }).edges.test_covers).toBeGreaterThan(0);
      expect(progress.length).toBeGreaterThan(0);
      expect([...progress].sort((a, b) => a - b)).toEqual(progress);

      const n = await c.client.callTool({ name: "graph_neighbors", arguments: { ref: "pyproj/shapes/geometry.py" } });
      expect(textOf(n)).toContain("← test_covers (1)");
      expect(textOf(n)).toContain("pyproj/tests/test_geometry.py");
      const missing = await c.client.callTool({ name: "graph_neighbors", arguments: { ref: "no/such/file.py" } });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toMatch(/^NOT_FOUND: no node matches/);

      const stats = await c.client.readResource({ uri: "memcards://graph/stats" });
      const body = JSON.parse((stats.contents[0] as { text: string }).text) as Structured;
      expect(body.state).toBe("complete");
      expect(body.files).toBe(48);
    } finally {
      await c.close();
    }
  });

  it("returns a job id at once, keeps answering other calls while indexing, and can cancel", async () => {
    const root = syntheticRepo(1500, 30);
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const started = await c.client.callTool({ name: "build_context_graph", arguments: { wait: false } });
      const job = (started.structuredContent as Structured).job_id as string;
      expect((started.structuredContent as Structured).state).toBe("running");
      // The server answers status while the worker indexes.
      const status = await c.client.callTool({ name: "status", arguments: {} });
      expect(status.isError).toBeFalsy();
      const poll = await c.client.callTool({ name: "build_context_graph", arguments: { job_id: job } });
      expect((poll.structuredContent as Structured).state).toBe("running");
      const jobState = async (id: string) =>
        (
          (await c.client.callTool({ name: "build_context_graph", arguments: { job_id: id } }))
            .structuredContent as Structured
        ).state as string;
      expect(
        await pollUntil(
          () => jobState(job),
          (s) => s !== "running",
        ),
      ).toBe("done");

      // A second build with nothing changed is quick; a build cancelled at once reports cancelled.
      appendFileSync(join(root, "pkg0", "mod0.py"), "\ndef late_addition():\n    return 1\n");
      const again = await c.client.callTool({ name: "build_context_graph", arguments: { wait: false } });
      const id2 = (again.structuredContent as Structured).job_id as string;
      await c.client.callTool({ name: "build_context_graph", arguments: { job_id: id2, cancel: true } });
      expect(["cancelled", "done"]).toContain(
        await pollUntil(
          () => jobState(id2),
          (s) => s !== "running",
        ),
      );
      const bad = await c.client.callTool({ name: "build_context_graph", arguments: { job_id: "nope" } });
      expect(bad.isError).toBe(true);
    } finally {
      await c.close();
    }
  }, 600_000);

  it("watch:true picks up an edited file", async () => {
    const root = copyPolyglot();
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const res = await c.client.callTool({ name: "build_context_graph", arguments: { watch: true } });
      expect(textOf(res)).toContain("watching for changes");
      await sleep(500);
      appendFileSync(join(root, "pyproj/shapes/util.py"), "\n\ndef freshly_watched():\n    return 42\n");
      const n = await pollUntil(
        () => c.client.callTool({ name: "graph_neighbors", arguments: { ref: "freshly_watched" } }),
        (r) => !r.isError,
      );
      expect(n.isError).toBeFalsy();
    } finally {
      await c.close();
    }
  });
});
