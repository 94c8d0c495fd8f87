// The units as the viewer lists them, read through memory/: pages under filters, units by id in the order asked,
// the filter bar's counts, and what a unit's card shows beside its text (history, conflict, files changed since).
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { browseUnits, listUnits, unitContext, unitFacets, unitsById } from "../../src/memory/browse.js";
import { recordMemory } from "../../src/session/memory.js";
import { writeFile } from "../../src/storage/graph/files.js";
import { getMemory } from "../../src/storage/memories.js";
import { startUi } from "../../src/ui/server.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";
import { login } from "../ui/client.js";

let app: App;

beforeEach(() => {
  app = openTestApp(tmpDir("memcards-browse-"));
});

afterEach(async () => {
  await app?.close();
});

const record = (category: "learning" | "failure" | "performance", text: string, files?: string[]) =>
  recordMemory(app.scope, { category, text, ...(files ? { files } : {}) }).id!;

describe("browsing units", () => {
  it("pages newest first under filters, and counts every match", () => {
    const ids = ["alpha", "beta", "gamma", "delta", "epsilon"].map((w) =>
      record("learning", `The ${w} cache warms up.`),
    );
    const failure = record("failure", "The nightly build fails on the ARM runner.");
    const first = browseUnits(app.scope, { category: "learning" }, 2, { offset: 0 });
    expect(first.total).toBe(5);
    expect(first.units.map((u) => u.id)).toEqual([ids[4], ids[3]]);
    expect(browseUnits(app.scope, { category: "learning" }, 2, { offset: 4 }).units.map((u) => u.id)).toEqual([ids[0]]);
    expect(browseUnits(app.scope, { category: "failure" }, 10, { offset: 0 }).units.map((u) => u.id)).toEqual([
      failure,
    ]);
    expect(browseUnits(app.scope, {}, 10, { offset: 0 }).total).toBe(6);
    expect(browseUnits(app.scope, { since: "2999-01-01" }, 10, { offset: 0 }).total).toBe(0);
    const facets = unitFacets(app.scope);
    expect(facets.filter((f) => f.category === "learning").reduce((n, f) => n + f.n, 0)).toBe(5);
    expect(listUnits(app.scope, { category: "failure" }).map((u) => u.text)).toEqual([
      "The nightly build fails on the ARM runner.",
    ]);
  });

  it("returns units by id in the order asked, leaving out ids that are no unit of the project", () => {
    const a = record("learning", "Retries back off exponentially.");
    const b = record("failure", "The login test flakes under load.");
    expect(unitsById(app.scope, [b, 9999, a]).map((u) => u.id)).toEqual([b, a]);
    expect(unitsById(app.scope, [])).toEqual([]);
  });

  it("shows the value a metric superseded and the files changed since the unit was written", () => {
    const old = record("performance", "p95 latency: 120 ms");
    const now = record("performance", "p95 latency: 90 ms", ["src/api.ts", "src/db.ts"]);
    expect(getMemory(app.db, old)?.superseded_by).toBe(now);
    const unit = getMemory(app.db, now)!;
    const written = Date.parse(unit.updated_at);
    const file = (path: string, mtimeMs: number) =>
      writeFile(
        app.db,
        app.project.id,
        { path, language: "typescript", size: 1, mtimeMs, hash: path, isTest: false },
        null,
        [],
        [],
      );
    file("src/api.ts", written + 60_000);
    file("src/db.ts", written - 60_000);
    const ctx = unitContext(app.scope, unit);
    expect(ctx.history.map((h) => h.id)).toEqual([old]);
    expect(ctx.conflict).toBeUndefined();
    expect(ctx.staleFiles).toEqual(["src/api.ts"]);
  });

  it("lists a unit whose JSON columns are damaged with them empty, so the viewer can still show it to forget it", async () => {
    const sound = record("learning", "The sound cache warms up.", ["src/sound.ts"]);
    const damaged = record("failure", "The damaged build fails on the ARM runner.");
    app.db
      .prepare("UPDATE memories SET record = ?, evidence = ?, files = ? WHERE id = ?")
      .run("{oops", '[{"quote": 1}]', "[1, 2]", damaged);
    const page = browseUnits(app.scope, {}, 10, { offset: 0 });
    expect(page.total).toBe(2);
    expect(page.units.map((u) => u.id)).toEqual([damaged, sound]);
    const [bad, good] = page.units;
    expect(bad).toMatchObject({
      text: "The damaged build fails on the ARM runner.",
      record: {},
      evidence: [],
      files: [],
    });
    expect(good?.files).toEqual(["src/sound.ts"]);
    expect(unitsById(app.scope, [sound, damaged]).map((u) => [u.id, u.files])).toEqual([
      [sound, ["src/sound.ts"]],
      [damaged, []],
    ]);
    const ui = await startUi(app);
    try {
      const client = await login(ui);
      const listed = await client.get("/memory");
      expect(listed.status).toBe(200);
      const html = await listed.text();
      expect(html).toContain(`id="unit-${damaged}"`);
      expect(html).toContain(`id="unit-${sound}"`);
      expect((await client.post(`/memory/${damaged}/forget`)).status).toBe(303);
      expect(unitsById(app.scope, [sound, damaged]).map((u) => u.id)).toEqual([sound]);
    } finally {
      await ui.close();
    }
  });
});
