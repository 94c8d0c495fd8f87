// Distillations a stopped process left queued run again when a server opens the store: pending from its first call
// on, and finished before the store closes.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { createApp } from "../../src/app.js";
import { createAppCache } from "../../src/app-cache.js";
import { resolveConfig } from "../../src/config.js";
import { createLogger, silentLogger } from "../../src/log.js";
import { queuedDistillations, queueDistillation } from "../../src/memory/distill-queue.js";
import { resolveProjectRoot } from "../../src/project/root.js";
import { openDatabase } from "../../src/storage/db.js";
import { emptySections } from "../../src/transcript/extraction/merge.js";
import { connect } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

/** A project whose store holds one queued distillation. */
function queuedStore() {
  const root = tmpDir();
  const db = join(tmpDir(), "m.db");
  const config = resolveConfig({ root, db, embedder: "offline" }, { MEMCARDS_HOME: tmpDir() });
  const location = resolveProjectRoot({ explicit: root, cwd: root, userDir: config.userDir });
  const app = createApp(config, location, silentLogger);
  const sections = emptySections();
  sections.constraints.push({ text: "Never log access tokens in this service.", turn: "t0" });
  const text = "Never log access tokens in this service.";
  const turn = {
    id: "t0",
    index: 0,
    role: "user" as const,
    kind: "message" as const,
    text,
    tool_calls: [],
    tool_results: [],
  };
  const job = queueDistillation(app.db, { projectId: app.project.id, sessionId: "s", span: [turn], sections });
  const projectId = app.project.id;
  return { config, location, db, job, projectId, close: () => app.close() };
}

/** The store's queued distillations, read from the file. */
function queuedIn(path: string, projectId: number): number[] {
  const db = openDatabase(path);
  try {
    return queuedDistillations(db, projectId);
  } finally {
    db.close();
  }
}

type Distillation = { pending: number; done: number; failed: number };

describe("queued distillations at open", () => {
  it("count as pending from the first call after a start, and are distilled", async () => {
    const s = queuedStore();
    await s.close();
    const c = await connect({
      flags: { root: s.location.root, db: s.db, embedder: "offline" },
      env: { MEMCARDS_HOME: tmpDir() },
    });
    try {
      const status = async () =>
        (
          (await c.client.callTool({ name: "status", arguments: {} })).structuredContent as {
            distillation: Distillation;
          }
        ).distillation;
      const first = await status();
      expect(first.pending + first.done).toBe(1);
      let d = first;
      while (d.pending > 0) {
        await new Promise((r) => setTimeout(r, 50));
        d = await status();
      }
      expect(d).toMatchObject({ done: 1, failed: 0 });
      expect(queuedIn(s.db, s.projectId)).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it("are finished, not left to a closed store, when the store closes right after it opened", async () => {
    const s = queuedStore();
    await s.close();
    const lines: string[] = [];
    const apps = createAppCache(
      s.config,
      createLogger("debug", (l) => lines.push(l)),
    );
    apps.forLocation(s.location);
    await apps.closeAll();
    await import("../../src/memory/distill-queue.js");
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
    expect(lines.join("\n")).not.toMatch(/failed|not open|still running/);
    expect(queuedIn(s.db, s.projectId)).toEqual([]);
  });
});
