// Review mode: with it on, distilled units wait (pending) and appear in neither recall, search nor cards until
// approved; a rejected unit is deleted; with it off, distillation stores active units as before.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { cardId, getMemoryCards } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { setReviewMode } from "../../src/memory/review.js";
import { recall, searchMemory } from "../../src/memory/service.js";
import { compressContext } from "../../src/session/compress.js";
import { approveUnit, rejectUnit } from "../../src/session/curate.js";
import { getMemory, listMemories } from "../../src/storage/memories.js";
import { openTestApp } from "../graph/helpers.js";
import { SESSION_FACTS, writeSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

let app: App;
let root: string;

beforeAll(async () => {
  root = tmpDir("memcards-review-");
  mkdirSync(join(root, "src", "sitemap"), { recursive: true });
  writeFileSync(join(root, "src", "sitemap", "build.ts"), "export function buildSitemap(pages: string[]) {}\n");
  mkdirSync(join(root, "config"));
  writeFileSync(join(root, "config", "prod.yaml"), "env: prod\n");
  app = openTestApp(root);
  await buildGraph(app.scope, app, { lexicalOnly: true });
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const task = `${SESSION_FACTS.constraint} while adding the sitemap`;
const cardsFor = async () =>
  (await getMemoryCards({ ...app.scope, ranker: app.ranker }, { task, judge: false, budgetTokens: 4000 })).cards.map(
    (c) => c.id,
  );

describe("review mode", () => {
  it("keeps new distilled units out of recall, search and cards until approved", async () => {
    setReviewMode(app.db, app.project.id, true);
    const r = compressContext(app.scope, { transcriptPath: writeSession(root, "s1.jsonl", 3), keepRecent: 2 });
    expect(r.memories?.added).toBeGreaterThan(0);
    const pending = listMemories(app.db, app.project.id, { includeInactive: true, limit: 1000 });
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((m) => m.status === "pending")).toBe(true);
    const constraint = pending.find((m) => m.category === "commitment" && m.text.includes("config/prod.yaml"));
    expect(constraint, pending.map((m) => `${m.category}: ${m.text}`).join("\n")).toBeDefined();
    const id = constraint!.id;

    expect(recall(app.scope, { budgetTokens: 4000 }).units).toEqual([]);
    expect(searchMemory(app.scope, { query: "config prod yaml" }).hits.map((h) => h.id)).not.toContain(id);
    expect(await cardsFor()).not.toContain(cardId(`memory:${id}`));
    // No graph node either: nothing reaches the unit through the graph before approval.
    expect(app.db.prepare("SELECT 1 FROM nodes WHERE key = ?").get(`memory:${id}`)).toBeUndefined();

    approveUnit(app.scope, id);
    expect(getMemory(app.db, id)?.status).toBe("active");
    expect(app.db.prepare("SELECT 1 FROM nodes WHERE key = ?").get(`memory:${id}`)).toBeDefined();
    expect(recall(app.scope, { budgetTokens: 4000 }).units).toContain(id);
    expect(searchMemory(app.scope, { query: "config prod yaml" }).hits.map((h) => h.id)).toContain(id);
    expect(await cardsFor()).toContain(cardId(`memory:${id}`));
    expect(() => approveUnit(app.scope, id)).toThrow(/not waiting for review/);
  });

  it("deletes a rejected unit and stores active units again once review mode is off", () => {
    const other = listMemories(app.db, app.project.id, { includeInactive: true, limit: 1000 }).find(
      (m) => m.status === "pending",
    );
    expect(other).toBeDefined();
    rejectUnit(app.scope, other!.id);
    expect(getMemory(app.db, other!.id)).toBeUndefined();

    setReviewMode(app.db, app.project.id, false);
    const before = new Set(
      listMemories(app.db, app.project.id, { includeInactive: true, limit: 1000 }).map((m) => m.id),
    );
    const r = compressContext(app.scope, {
      transcriptPath: writeSession(root, "s2.jsonl", 2, {}),
      keepRecent: 2,
    });
    expect(r.memories?.added ?? 0).toBeGreaterThan(0);
    const added = listMemories(app.db, app.project.id, { includeInactive: true, limit: 1000 }).filter(
      (m) => !before.has(m.id),
    );
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((m) => m.status !== "pending")).toBe(true);
  });
});
