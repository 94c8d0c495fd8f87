// Streamable HTTP sessions are released: an abandoned one expires after the idle timeout (its id then gets
// 404), an active one stays, and the number open at once is capped with a clear error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";

import { createAppCache } from "../../src/app-cache.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { createServer } from "../../src/server.js";
import { serveHttp } from "../../src/transport/http.js";
import { textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function initialize(url: string) {
  return fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
}

function ping(url: string, session: string) {
  return fetch(url, {
    method: "POST",
    headers: { ...HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("HTTP session lifetime", () => {
  it("expires an abandoned session, keeps an active one, and caps how many are open", async () => {
    const config = resolveConfig(
      { root: tmpDir(), port: 0, idleTimeout: "0.6", maxSessions: "2" },
      { MEMCARDS_HOME: tmpDir() },
    );
    expect(config.http).toMatchObject({ idleTimeoutSec: 0.6, maxSessions: 2 });
    const apps = createAppCache(config, silentLogger);
    const handle = await serveHttp({
      ...config.http,
      logger: silentLogger,
      newServer: () => createServer({ config, apps, logger: silentLogger, version: "test", cwd: "/" }),
    });
    const active = new Client({ name: "active", version: "1" });
    try {
      await active.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const first = await initialize(handle.url);
      expect(first.status).toBe(200);
      await first.text();
      const abandoned = first.headers.get("mcp-session-id")!;
      expect(abandoned).toBeTruthy();

      const third = await initialize(handle.url);
      expect(third.status).toBe(503);
      expect(((await third.json()) as { error: { message: string } }).error.message).toMatch(
        /Too many sessions: 2 open \(limit 2\)/,
      );

      // The active client keeps working past several idle timeouts; the abandoned session does not survive them.
      const until = Date.now() + 2000;
      while (Date.now() < until) {
        const r = await active.callTool({ name: "status", arguments: {} });
        expect(textOf(r)).toMatch(/root: /);
        await sleep(150);
      }
      const gone = await ping(handle.url, abandoned);
      expect(gone.status).toBe(404);
      await gone.text();

      // Its place is free again.
      const again = await initialize(handle.url);
      expect(again.status).toBe(200);
      await again.text();
      const fresh = again.headers.get("mcp-session-id")!;
      const alive = await ping(handle.url, fresh);
      expect(alive.status).toBe(200);
      await alive.text();
    } finally {
      await active.close();
      await handle.close();
      await apps.closeAll();
    }
  }, 60_000);

  async function start(http: { idleTimeoutSec: number; maxSessions: number; evictIdleAfterSec?: number }) {
    const config = resolveConfig({ root: tmpDir(), port: 0 }, { MEMCARDS_HOME: tmpDir() });
    const apps = createAppCache(config, silentLogger);
    const handle = await serveHttp({
      host: "127.0.0.1",
      port: 0,
      ...http,
      logger: silentLogger,
      newServer: () => createServer({ config, apps, logger: silentLogger, version: "test", cwd: "/" }),
    });
    return { handle, close: async () => (await handle.close(), await apps.closeAll()) };
  }

  /** Initializes a raw session and opens its GET event stream; `ended` resolves when the server ends the stream. */
  async function holdStream(url: string): Promise<{ id: string; ended: Promise<void>; abort(): void }> {
    const init = await initialize(url);
    expect(init.status).toBe(200);
    await init.text();
    const id = init.headers.get("mcp-session-id")!;
    const abort = new AbortController();
    const stream = await fetch(url, {
      headers: { accept: "text/event-stream", "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const ended = (async () => {
      try {
        while (!(await reader.read()).done);
      } catch {
        // aborted by the test
      }
    })();
    return { id, ended, abort: () => abort.abort() };
  }

  it("expires idle sessions that hold a GET stream open, so later clients get in", async () => {
    const srv = await start({ idleTimeoutSec: 2, maxSessions: 20 });
    const held: Awaited<ReturnType<typeof holdStream>>[] = [];
    try {
      for (let i = 0; i < 20; i++) held.push(await holdStream(srv.handle.url));
      expect(srv.handle.stats().streams).toBeGreaterThan(0);
      // Every stream is ended by the server when its session expires (a stream alone is not activity).
      await Promise.all(held.map((h) => h.ended));
      const gone = await ping(srv.handle.url, held[0]!.id);
      expect(gone.status).toBe(404);
      await gone.text();
      for (let i = 0; i < 5; i++) {
        const later = await initialize(srv.handle.url);
        expect(later.status).toBe(200);
        await later.text();
      }
      expect(srv.handle.stats().evicted).toBe(0);
    } finally {
      for (const h of held) h.abort();
      await srv.close();
    }
  }, 60_000);

  it("at the cap, a new client takes the place of the least recently active idle session", async () => {
    const srv = await start({ idleTimeoutSec: 600, maxSessions: 20, evictIdleAfterSec: 0.2 });
    const held: Awaited<ReturnType<typeof holdStream>>[] = [];
    try {
      for (let i = 0; i < 20; i++) held.push(await holdStream(srv.handle.url));
      await sleep(300); // every holder is now idle for longer than evictIdleAfterSec
      // The newest holder pings, so the oldest is the least recently active.
      const touched = await ping(srv.handle.url, held[19]!.id);
      expect(touched.status).toBe(200);
      await touched.text();
      const later = await initialize(srv.handle.url);
      expect(later.status).toBe(200);
      await later.text();
      await held[0]!.ended; // the evicted session's stream was ended by the server
      expect(srv.handle.stats()).toMatchObject({ sessions: 20, evicted: 1 });
      const gone = await ping(srv.handle.url, held[0]!.id);
      expect(gone.status).toBe(404);
      await gone.text();
      const kept = await ping(srv.handle.url, held[19]!.id);
      expect(kept.status).toBe(200);
      await kept.text();
    } finally {
      for (const h of held) h.abort();
      await srv.close();
    }
  }, 60_000);

  it("rejects a timeout or a session limit that is not a positive number", () => {
    expect(() => resolveConfig({ idleTimeout: "0" }, {})).toThrow(/invalid setting http.idleTimeoutSec/);
    expect(() => resolveConfig({}, { MEMCARDS_HTTP_MAX_SESSIONS: "none" })).toThrow(/http.maxSessions/);
    expect(resolveConfig({}, {}).http).toMatchObject({ idleTimeoutSec: 1800, maxSessions: 256 });
  });
});
