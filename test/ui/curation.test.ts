// Curation and review mode at the edges: imports keep waiting units waiting, agent-facing search never returns a
// unit waiting for review, a waiting draft changes no unit in force, approval cross-references, an edit leaves no
// trace of the old wording, and record_memory waits for review too.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { importMemory } from "../../src/memory/admin.js";
import { writeUnits } from "../../src/memory/distill.js";
import { setReviewMode } from "../../src/memory/review.js";
import type { UnitDraft } from "../../src/memory/schema.js";
import { recall, searchMemory } from "../../src/memory/service.js";
import { approveUnit, editUnit } from "../../src/session/curate.js";
import { forget, recordMemory } from "../../src/session/memory.js";
import { getMemory, listMemories, type MemoryRow } from "../../src/storage/memories.js";
import { startUi } from "../../src/ui/server.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";
import { leaked } from "../security/canaries.js";
import { login } from "./client.js";

let app: App;
let root: string;
let P: number;

beforeEach(() => {
  root = tmpDir("memcards-curation-");
  app = openTestApp(root);
  P = app.project.id;
});

afterEach(async () => {
  await app?.close();
});

const draft = (category: UnitDraft["category"], text: string, key: string, record: Record<string, unknown> = {}) =>
  ({
    category,
    text,
    record,
    key,
    confidence: 0.9,
    evidence: [{ session: "s", turn: "1", quote: text }],
    files: [],
  }) satisfies UnitDraft;

const all = (): MemoryRow[] => listMemories(app.db, P, { includeInactive: true, limit: 1000 });
const byKey = (key: string) => all().filter((m) => m.merge_key === key);

describe("import", () => {
  const importLines = (lines: unknown[]) => {
    const f = join(root, `import-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(f, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    return importMemory(app.db, P, f);
  };
  const line = (text: string, key: string, status?: string) => ({
    category: "commitment",
    text,
    key,
    confidence: 0.9,
    ...(status ? { status } : {}),
  });

  it("keeps a unit exported while waiting still waiting, and in review mode makes every unit wait", () => {
    const r = importLines([
      line("Always run frobnicate --force before deploy", "k-pending", "pending"),
      line("Always tag releases with the grumblewick suffix", "k-active", "active"),
    ]);
    expect(r).toMatchObject({ imported: 2, skipped: 0 });
    expect(byKey("k-pending").map((m) => m.status)).toEqual(["pending"]);
    expect(byKey("k-active").map((m) => m.status)).toEqual(["active"]);
    expect(recall(app.scope, { budgetTokens: 4000 }).units).not.toContain(byKey("k-pending")[0]!.id);

    setReviewMode(app.db, P, true);
    importLines([line("Never push to the quillborough branch on Fridays", "k-review", "active")]);
    expect(byKey("k-review").map((m) => m.status)).toEqual(["pending"]);
  });

  it("skips a text over 4000 characters and redacts what it stores", () => {
    const secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const r = importLines([
      line(`Never deploy on ${"x".repeat(4001)}`, "k-long"),
      line(`The deploy token is ${secret} for the mirror`, "k-secret"),
    ]);
    expect(r).toMatchObject({ imported: 1, skipped: 1 });
    expect(byKey("k-long")).toEqual([]);
    const stored = all().find((m) => m.text.includes("deploy token"));
    expect(stored?.text).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain(secret);
  });
});

describe("review mode", () => {
  it("search_memory never returns a unit waiting for review, even with include_inactive", () => {
    writeUnits(app.db, P, "s1", [], [draft("commitment", "Never touch zorblax config", "k-zorb")], { pending: true });
    const pending = byKey("k-zorb")[0]!;
    expect(pending.status).toBe("pending");
    expect(searchMemory(app.scope, { query: "zorblax", includeInactive: true }).hits).toEqual([]);
    expect(searchMemory(app.scope, { query: "zorblax" }).hits).toEqual([]);
    // The viewer, showing the person what waits, asks for them explicitly.
    const forViewer = searchMemory(app.scope, { query: "zorblax", includeInactive: true }, undefined, {
      includePending: true,
    });
    expect(forViewer.hits.map((h) => h.id)).toEqual([pending.id]);
  });

  it("merges a waiting draft into a waiting unit, never into one in force", () => {
    writeUnits(app.db, P, "s1", [], [draft("commitment", "I'll refactor quuxlib later", "k-q", { by: "agent" })]);
    const active = byKey("k-q")[0]!;
    setReviewMode(app.db, P, true);
    const twice = [draft("commitment", "I'll refactor quuxlib later", "k-q", { by: "user" })];
    writeUnits(app.db, P, "s3", [], twice, { pending: true });
    writeUnits(app.db, P, "s4", [], twice, { pending: true });
    const after = getMemory(app.db, active.id)!;
    expect([after.status, after.tier, after.importance, after.evidence.length]).toEqual([
      active.status,
      active.tier,
      active.importance,
      active.evidence.length,
    ]);
    const waiting = byKey("k-q").filter((m) => m.status === "pending");
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.confidence).toBeGreaterThan(0.95);
  });

  it("approval supersedes the previous metric and flags a contradicted commitment", async () => {
    writeUnits(
      app.db,
      P,
      "s1",
      [],
      [draft("performance", "build time: 10 s", "k-perf", { metric: "build time", value: 10 })],
    );
    writeUnits(
      app.db,
      P,
      "s2",
      [],
      [draft("performance", "build time: 20 s", "k-perf", { metric: "build time", value: 20 })],
      { pending: true },
    );
    const [newer, older] = byKey("k-perf");
    expect([newer!.status, older!.status]).toEqual(["pending", "active"]);
    expect(approveUnit(app.scope, newer!.id)).toEqual({ superseded: older!.id });
    expect(getMemory(app.db, older!.id)).toMatchObject({ status: "superseded", superseded_by: newer!.id });
    expect((getMemory(app.db, newer!.id)!.record as { history?: { id: number }[] }).history?.[0]?.id).toBe(older!.id);

    writeUnits(app.db, P, "s1", [], [draft("commitment", "Always use the vendored lodash in web/", "k-c1")]);
    writeUnits(app.db, P, "s2", [], [draft("commitment", "Never use the vendored lodash in web/", "k-c2")], {
      pending: true,
    });
    const first = byKey("k-c1")[0]!;
    const second = byKey("k-c2")[0]!;
    expect(approveUnit(app.scope, second.id)).toEqual({ conflictsWith: first.id });
    expect(getMemory(app.db, first.id)).toMatchObject({ status: "conflict", conflicts_with: second.id });

    // Through the viewer, the flash says what approval did.
    writeUnits(app.db, P, "s3", [], [draft("performance", "build time: 30 s", "k-perf", { value: 30 })], {
      pending: true,
    });
    const third = byKey("k-perf").find((m) => m.status === "pending")!;
    const ui = await startUi(app);
    try {
      const r = await (await login(ui)).post(`/memory/${third.id}/approve`);
      expect(new URL(r.headers.get("location") ?? "", "http://x").searchParams.get("msg")).toBe(
        `unit #${third.id} approved; it supersedes #${newer!.id}`,
      );
    } finally {
      await ui.close();
    }
  });

  it("makes a unit the agent records itself wait for approval", () => {
    setReviewMode(app.db, P, true);
    const r = recordMemory(app.scope, { category: "rule", text: "Never edit the generated plinthwarden schema" });
    expect(r.outcome).toMatch(/waits for review/);
    expect(getMemory(app.db, r.id!)?.status).toBe("pending");
    expect(searchMemory(app.scope, { query: "plinthwarden", includeInactive: true }).hits).toEqual([]);
    expect(recall(app.scope, { budgetTokens: 4000 }).units).not.toContain(r.id);
  });
});

describe("edit", () => {
  it("leaves the old wording nowhere: merge key, evidence, record, database file and WAL", () => {
    const old = "the staging host is hunter2box internal";
    writeUnits(app.db, P, "s1", [], [draft("learning", old, old, { proposition: old })]);
    const unit = all().find((m) => m.text.includes("hunter2box"))!;
    editUnit(app.scope, unit.id, "the staging host is private");
    const after = getMemory(app.db, unit.id)!;
    expect(after.text).toBe("the staging host is private");
    expect(after.merge_key).toBe("the staging host is private");
    expect(JSON.stringify(after)).not.toContain("hunter2box");
    expect(after.evidence[0]?.quote).toBe("the staging host is private");
    expect(leaked(app.dbPath, ["hunter2box"])).toEqual([]);
  });
});

describe("pages of units", () => {
  it("leads back to newer units from a page emptied since its link was made", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 55; i++)
      ids.push(
        recordMemory(app.scope, { category: "learning", text: `The zorblat_${i} queue drains into vesper_${i}` }).id!,
      );
    const ui = await startUi(app);
    try {
      const client = await login(ui);
      const first = await (await client.get("/memory")).text();
      const older = /<a href="(\/memory\?[^"]*)"\s*>older/.exec(first)?.[1]?.replace(/&amp;/g, "&");
      expect(older).toMatch(/before=\d+/);
      // The oldest units, all shown on the second page, are forgotten: the second page is empty now.
      for (const id of ids.slice(0, 5)) forget(app.scope, { id });
      const second = await (await client.get(older!)).text();
      expect(second).not.toContain('class="unit"');
      const newer = /<a href="(\/memory[^"]*)"\s*>← newer/.exec(second)?.[1]?.replace(/&amp;/g, "&");
      expect(newer).toBeDefined();
      const back = await (await client.get(newer!)).text();
      expect(back).toContain(`unit-${ids.at(-1)}`);
    } finally {
      await ui.close();
    }
  });
});
