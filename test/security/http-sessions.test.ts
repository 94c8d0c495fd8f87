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

  it("rejects a timeout or a session limit that is not a positive number", () => {
    expect(() => resolveConfig({ idleTimeout: "0" }, {})).toThrow(/invalid setting http.idleTimeoutSec/);
    expect(() => resolveConfig({}, { MEMCARDS_HTTP_MAX_SESSIONS: "none" })).toThrow(/http.maxSessions/);
    expect(resolveConfig({}, {}).http).toMatchObject({ idleTimeoutSec: 1800, maxSessions: 256 });
  });
});
