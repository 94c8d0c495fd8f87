// The MCP server outside any project (no --root, no client roots, a working folder outside git): memory works
// from the per-user store, but indexing stops with NO_PROJECT instead of indexing the store's own folder.
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { createApp } from "../../src/app.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { resolveProjectRoot } from "../../src/project/root.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

describe("build_context_graph with only the per-user store", () => {
  it("answers NO_PROJECT and indexes nothing", async () => {
    const home = realpathSync(tmpDir());
    const c = await connect({ env: { MEMCARDS_HOME: home, MEMCARDS_ROOT: "" }, cwd: "/" });
    try {
      const status = await c.client.callTool({ name: "status", arguments: {} });
      expect(textOf(status)).toContain(`root: ${home} (from user-store)`);
      const res = await c.client
        .callTool({ name: "build_context_graph", arguments: { wait: true, lexical_only: true, watch: true } })
        .catch((e: Error) => e);
      const text = res instanceof Error ? res.message : textOf(res);
      if (!(res instanceof Error)) expect(res.isError).toBe(true);
      expect(text).toContain("NO_PROJECT");
      // The store's folder holds the database, never an index of itself.
      const after = await c.client.callTool({ name: "status", arguments: {} });
      expect(textOf(after)).not.toMatch(/files: [1-9]/);
    } finally {
      await c.close();
    }
    expect(existsSync(join(home, "memcards.db"))).toBe(true);
  });
});

describe("the graph worker with only the per-user store", () => {
  it("fails a whole-root build with NO_PROJECT (the watcher's re-index takes this path)", async () => {
    const home = realpathSync(tmpDir());
    const config = resolveConfig({ embedder: "offline" }, { MEMCARDS_HOME: home });
    const location = resolveProjectRoot({ cwd: "/", userDir: config.userDir });
    expect(location.source).toBe("user-store");
    const app = createApp(config, location, silentLogger);
    try {
      const job = app.graph.host.start({ lexicalOnly: true });
      const done = await job.finished;
      expect(done.result).toBeUndefined();
      expect(done.error?.message ?? "").toMatch(/no project here/);
    } finally {
      await app.close();
    }
  });
});
