// The viewer over HTTP with a real store: every page renders its data, search finds units, each action changes
// the store (forget leaves no trace in any table, index or the WAL), and requests without the token, from a
// foreign Origin or Host, or changes without the CSRF token are refused.
import { request } from "node:http";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { isReviewMode } from "../../src/memory/review.js";
import { recordMemory } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { finishPurge, getMemory } from "../../src/storage/memories.js";
import { startUi, type UiHandle } from "../../src/ui/server.js";
import { ftsTerms, leaked } from "../security/canaries.js";
import { login, type UiClient } from "./client.js";
import { buildUiStore, CANARY, type UiStore } from "./store.js";

let store: UiStore;
let ui: UiHandle;
let client: UiClient;

beforeAll(async () => {
  store = await buildUiStore();
  ui = await startUi(store.app);
  client = await login(ui);
}, 120_000);

afterAll(async () => {
  await ui?.close();
  await store?.app.close();
});

/** The message a change redirected with. */
const flashOf = (r: Response) => {
  const q = new URL(r.headers.get("location") ?? "/", "http://x").searchParams;
  return q.get("err") ?? q.get("msg") ?? "";
};

/** fetch cannot set Host: a raw request with the session's cookie and the given Host header. */
function statusWithHost(path: string, host: string): Promise<number> {
  const u = new URL(ui.origin);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, path, headers: { host, cookie: client.cookie }, timeout: 5000 },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject).end();
  });
}

const page = async (path: string) => {
  const r = await client.get(path);
  expect(r.status, path).toBe(200);
  return r.text();
};

describe("memcards ui over HTTP", () => {
  it("serves each page with the store's data", async () => {
    const memory = await page("/memory");
    expect(memory).toContain(CANARY);
    expect(memory).toMatch(/\d+ units?, page 1 of \d+/);
    const sessions = await page("/sessions");
    expect(sessions).toContain("claude-code.jsonl");
    expect(sessions).toContain("claude-code-jsonl");
    expect(sessions).toContain('aria-label="Rendered summary"');
    const injections = await page("/injections");
    expect(injections).toContain("injected the project brief (4 units), 1234 chars");
    const cards = await page("/cards");
    expect(cards).toMatch(/\d+ cards? served; outcomes recorded [1-9]/);
    const graph = await page("/graph");
    expect(graph).toContain("pyproj/shapes/geometry.py");
    expect(graph).toContain("<svg");
    const near = await page(`/graph?file=${encodeURIComponent("pyproj/shapes/geometry.py")}`);
    expect(near).toContain("Neighbours of");
    expect(await page("/memory/audit")).toMatch(/\d+ memory units?/);
    const css = await client.get("/static/app.css");
    expect(await css.text()).toContain("prefers-color-scheme: dark");
  });

  it("searches as search_memory does, with filters", async () => {
    const hit = await page(`/memory?q=${CANARY}`);
    expect(hit).toContain(`#${store.canaryId}`);
    expect(hit).toMatch(/1 unit matching/);
    const filtered = await page(`/memory?q=${CANARY}&category=failure`);
    expect(filtered).toMatch(/0 units matching/);
    expect(await page("/memory?category=commitment")).toContain(CANARY);
  });

  it("refuses a request without the token, with a wrong token, from a foreign Origin or Host", async () => {
    expect((await fetch(`${ui.origin}/memory`)).status).toBe(401);
    expect((await fetch(`${ui.origin}/memory?token=nope`, { redirect: "manual" })).status).toBe(401);
    expect((await client.get("/memory", { origin: "http://evil.example" })).status).toBe(403);
    expect(await statusWithHost("/memory", "evil.example")).toBe(403);
    expect(await statusWithHost("/memory", new URL(ui.origin).host)).toBe(200);
    const before = getMemory(store.app.db, store.canaryId)!.text;
    const foreign = await client.post(
      `/memory/${store.canaryId}/edit`,
      { text: "changed" },
      { headers: { origin: "http://evil.example" } },
    );
    expect(foreign.status).toBe(403);
    const opaque = await client.post(
      `/memory/${store.canaryId}/edit`,
      { text: "changed" },
      { headers: { origin: "null" } },
    );
    expect(opaque.status).toBe(403);
    const noCookie = await fetch(`${ui.origin}/memory/${store.canaryId}/forget`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${ui.secrets.csrf}`,
    });
    expect(noCookie.status).toBe(401);
    expect(getMemory(store.app.db, store.canaryId)?.text).toBe(before);
  });

  it("refuses a change without its CSRF token or with another one", async () => {
    const id = store.canaryId;
    expect((await client.post(`/memory/${id}/forget`, {}, { csrf: null })).status).toBe(403);
    expect((await client.post(`/memory/${id}/pin`, {}, { csrf: "x".repeat(32) })).status).toBe(403);
    expect((await client.post("/project/review", { on: "1" }, { csrf: null })).status).toBe(403);
    expect(getMemory(store.app.db, id)).toBeDefined();
    expect(getMemory(store.app.db, id)?.record.pinned).toBeUndefined();
    expect(isReviewMode(store.app.db, store.app.project.id)).toBe(false);
  });

  it("edits and pins a unit; the search index follows the edit", async () => {
    const units = store.app.db
      .prepare("SELECT id FROM memories WHERE project_id = ? AND id != ? AND tier = 'cold' ORDER BY id LIMIT 1")
      .get(store.app.project.id, store.canaryId) as { id: number } | undefined;
    // Never the canary's unit: the forget test below must find its text and then none of it.
    const id =
      units?.id ??
      recordMemory(store.app.scope, { category: "learning", text: "The area helper rounds to six places" }).id!;
    const edit = await client.post(`/memory/${id}/edit`, {
      text: "Use the quillmarmot helper for areas",
      back: "/memory",
    });
    expect(edit.status).toBe(303);
    expect(edit.headers.get("location")).toMatch(/^\/memory\?msg=/);
    expect(getMemory(store.app.db, id)?.text).toBe("Use the quillmarmot helper for areas");
    expect(await page("/memory?q=quillmarmot")).toContain(`#${id}`);
    const queued = store.app.db
      .prepare(
        "SELECT v.text, v.embedded FROM vector_items v JOIN nodes n ON n.id = v.owner_id WHERE v.owner_type = 'node' AND n.key = ?",
      )
      .get(`memory:${id}`) as { text: string; embedded: number } | undefined;
    expect([queued?.text.includes("quillmarmot"), queued?.embedded]).toEqual([true, 0]);
    expect((await client.post(`/memory/${id}/pin`)).status).toBe(303);
    const pinned = getMemory(store.app.db, id)!;
    expect([pinned.tier, pinned.record.pinned]).toEqual(["warm", true]);
    expect((await client.post(`/memory/${id}/unpin`)).status).toBe(303);
    expect(getMemory(store.app.db, id)?.record.pinned).toBeUndefined();
    const empty = await client.post(`/memory/${id}/edit`, { text: "   " });
    expect(flashOf(empty)).toMatch(/cannot be empty/);
  });

  it("forgets a unit as forget does: no row, index term or WAL byte keeps its text", async () => {
    const db = openDatabase(store.app.dbPath);
    try {
      expect(leaked(store.app.dbPath, [CANARY])).toEqual([CANARY]);
      const r = await client.post(`/memory/${store.canaryId}/forget`, { back: "/memory" });
      expect(r.status).toBe(303);
      expect(getMemory(store.app.db, store.canaryId)).toBeUndefined();
      expect(leaked(store.app.dbPath, [CANARY])).toEqual([]);
      expect(ftsTerms(db).has(CANARY)).toBe(false);
      expect(await page("/memory")).not.toContain(CANARY);
    } finally {
      db.close();
    }
  });

  it("says when another connection's open read delays the purge of a forgotten unit", async () => {
    const id = recordMemory(store.app.scope, { category: "learning", text: "The wombatquasar flag is read once" }).id!;
    const reader = openDatabase(store.app.dbPath);
    store.app.db.pragma("busy_timeout = 100");
    try {
      reader.exec("BEGIN");
      reader.prepare("SELECT count(*) FROM memories").get();
      const r = await client.post(`/memory/${id}/forget`, { back: "/memory" });
      expect(r.status).toBe(303);
      expect(getMemory(store.app.db, id)).toBeUndefined();
      expect(flashOf(r)).toMatch(/forgotten; .*still in its file/);
    } finally {
      reader.exec("COMMIT");
      reader.close();
      store.app.db.pragma("busy_timeout = 5000");
    }
    expect(finishPurge(store.app.db)).toEqual({ purged: true });
    expect(leaked(store.app.dbPath, ["wombatquasar"])).toEqual([]);
    const next = recordMemory(store.app.scope, { category: "learning", text: "The otter build caches fonts" }).id!;
    const r = await client.post(`/memory/${next}/forget`, { back: "/memory" });
    expect(flashOf(r)).toMatch(new RegExp(`unit #${next} forgotten`));
    expect(flashOf(r)).not.toMatch(/still in its file/);
  });

  it("turns review mode and the pause on and off, exports and imports", async () => {
    expect((await client.post("/project/review", { on: "1" })).status).toBe(303);
    expect(isReviewMode(store.app.db, store.app.project.id)).toBe(true);
    expect(await page("/memory")).toContain("Review mode <strong>on</strong>");
    await client.post("/project/review", { on: "0" });
    expect(isReviewMode(store.app.db, store.app.project.id)).toBe(false);
    await client.post("/project/pause");
    expect(await page("/memory")).toContain("Memory is <strong>paused</strong>");
    await client.post("/project/resume");
    const exported = await (await client.get("/memory/export.jsonl")).text();
    const lines = exported.trim().split("\n");
    expect(lines.length).toBeGreaterThan(3);
    const form = new FormData();
    form.set("csrf", ui.secrets.csrf);
    form.set("back", "/memory");
    form.set(
      "file",
      new Blob([
        `${JSON.stringify({ category: "learning", text: "The pelicanvortex cache is warm after boot", key: "pelicanvortex", confidence: 0.9 })}\nnot json\n`,
      ]),
      "units.jsonl",
    );
    const r = await fetch(`${ui.origin}/memory/import`, {
      method: "POST",
      headers: { cookie: client.cookie, origin: ui.origin },
      body: form,
      redirect: "manual",
    });
    expect(flashOf(r)).toBe("imported 1, merged 0, skipped 1 line");
    expect(await page("/memory?q=pelicanvortex")).toMatch(/1 unit matching/);
  });
});
