// Distillations a stopped process left queued run again when a server opens the store; a store closed before that
// resume could start leaves them queued for the next start, with no distillation started after the close.
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

const settle = async () => {
  await import("../../src/session/compress.js");
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
};

describe("queued distillations at open", () => {
  it("resume in the background when the store is opened", async () => {
    const s = queuedStore();
    await s.close();
    const lines: string[] = [];
    const apps = createAppCache(
      s.config,
      createLogger("info", (l) => lines.push(l)),
    );
    apps.forLocation(s.location);
    await settle();
    expect(lines.join("\n")).toMatch(/resuming 1 queued distillation/);
    await apps.closeAll();
  });

  it("stay queued, with nothing started, when the store closes before the resume begins", async () => {
    const s = queuedStore();
    await s.close();
    const lines: string[] = [];
    const apps = createAppCache(
      s.config,
      createLogger("debug", (l) => lines.push(l)),
    );
    apps.forLocation(s.location);
    await apps.closeAll();
    await settle();
    expect(lines.join("\n")).not.toMatch(/resuming|distillation/);
    const db = openDatabase(s.db);
    try {
      expect(queuedDistillations(db, s.projectId)).toEqual([s.job]);
    } finally {
      db.close();
    }
  });
});
