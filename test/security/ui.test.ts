// Hostile input to memcards ui: stored text with markup is shown as text, redirects stay on the site, bodies are
// capped, ids are checked, a token is only taken from a GET, a change comes only from the viewer's own origin, a
// malformed form is a bad request, and a non-loopback address is refused.
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type App, createApp } from "../../src/app.js";
import { resolveConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { recordMemory } from "../../src/session/memory.js";
import { getMemory } from "../../src/storage/memories.js";
import { startUi, type UiHandle } from "../../src/ui/server.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";
import { login, type UiClient } from "../ui/client.js";

let app: App;
let ui: UiHandle;
let client: UiClient;
let id: number;

const MARKUP = `<script>alert(1)</script><img src=x onerror=alert(2)>"'`;

beforeAll(async () => {
  app = openTestApp(tmpDir("memcards-ui-hostile-"));
  id = recordMemory(app.scope, { category: "commitment", text: `Never trust ${MARKUP} in forms` }).id!;
  ui = await startUi(app);
  client = await login(ui);
});

afterAll(async () => {
  await ui?.close();
  await app?.close();
});

describe("memcards ui against hostile input", () => {
  it("shows stored markup as text, under a strict content security policy", async () => {
    const r = await client.get("/memory");
    const page = await r.text();
    expect(page).not.toContain("<script>alert(1)");
    expect(page).not.toContain("<img src=x");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(r.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    const search = await (await client.get(`/memory?q=${encodeURIComponent('"><script>x</script>')}`)).text();
    expect(search).not.toContain("<script>x</script>");
  });

  it("redirects only to paths on this site", async () => {
    for (const back of [
      "//evil.example/x",
      "https://evil.example/",
      "\\\\evil.example",
      "javascript:alert(1)",
      "/.//evil.example/x",
      "/a/..//evil.example/x",
      "/%2e//evil.example/x",
    ]) {
      const r = await client.post(`/memory/${id}/pin`, { back });
      expect(r.status).toBe(303);
      expect(r.headers.get("location"), back).toMatch(/^\/memory\?msg=/);
    }
  });

  it("refuses bad ids, a token sent with a POST, and an oversized body", async () => {
    const err = async (path: string) => {
      const r = await client.post(path);
      expect(r.status).toBe(303);
      return new URL(r.headers.get("location") ?? "", "http://x").searchParams.get("err");
    };
    expect(await err("/memory/abc/forget")).toMatch(/not a unit id/);
    expect(await err("/memory/-1/forget")).toMatch(/not a unit id/);
    expect(await err("/memory/999999/forget")).toMatch(/no memory unit #999999/);
    const withToken = await fetch(`${ui.origin}/memory/${id}/forget?token=${ui.secrets.token}`, {
      method: "POST",
      headers: { origin: ui.origin, "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${ui.secrets.csrf}`,
      redirect: "manual",
    });
    expect(withToken.status).toBe(401);
    const big = await client.post(`/memory/${id}/edit`, { text: "x".repeat(11 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect(getMemory(app.db, id)?.text).toContain("Never trust");
  });

  it("takes a change only from this viewer's own origin, not another local page", async () => {
    const port = Number(new URL(ui.origin).port);
    for (const origin of [`http://127.0.0.1:${port === 1 ? 2 : 1}`, `https://127.0.0.1:${port}`, "http://localhost"]) {
      const r = await client.post(`/memory/${id}/pin`, {}, { headers: { origin } });
      expect(r.status, origin).toBe(403);
    }
    const none = await fetch(`${ui.origin}/memory/${id}/pin`, {
      method: "POST",
      headers: { cookie: client.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${ui.secrets.csrf}`,
      redirect: "manual",
    });
    expect(none.status).toBe(403);
    expect((await client.post(`/memory/${id}/pin`)).status).toBe(303);
  });

  it("answers a malformed multipart body 400 without logging an error", async () => {
    const lines: string[] = [];
    const own = createApp(
      resolveConfig(
        { root: app.location.root, db: join(tmpDir(), "graph.db"), embedder: "offline" },
        { MEMCARDS_HOME: tmpDir() },
      ),
      app.location,
      createLogger("debug", (l) => lines.push(l)),
    );
    const viewer = await startUi(own);
    try {
      const c = await login(viewer);
      for (const body of ["garbage", '--x\r\nContent-Disposition: form-data; name="csrf"\r\n\r\nabc']) {
        const r = await fetch(`${viewer.origin}/project/pause`, {
          method: "POST",
          headers: { cookie: c.cookie, origin: viewer.origin, "content-type": "multipart/form-data; boundary=x" },
          body,
          redirect: "manual",
        });
        expect(r.status).toBe(400);
      }
      expect(lines.filter((l) => l.startsWith("memcards error"))).toEqual([]);
    } finally {
      await viewer.close();
      await own.close();
    }
  });

  it("refuses to listen on an address other than loopback", async () => {
    await expect(startUi(app, { host: "0.0.0.0" })).rejects.toThrow(/loopback only/);
  });
});
