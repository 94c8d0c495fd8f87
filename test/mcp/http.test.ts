import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAppCache } from "../../src/app-cache.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { createServer } from "../../src/server.js";
import type { HttpHandle } from "../../src/transport/http.js";
import { isLocalRequest, serveHttp } from "../../src/transport/http.js";
import { textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

async function start(token?: string): Promise<{ handle: HttpHandle; close(): Promise<void> }> {
  const config = resolveConfig({ root: tmpDir(), port: 0 }, { MEMCARDS_HOME: tmpDir() });
  const apps = createAppCache(config, silentLogger);
  const handle = await serveHttp({
    host: "127.0.0.1",
    port: 0,
    token,
    logger: silentLogger,
    newServer: () => createServer({ config, apps, logger: silentLogger, version: "test", cwd: "/" }),
  });
  return { handle, close: async () => (await handle.close(), await apps.closeAll()) };
}

function post(url: string, headers: Record<string, string>) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(INIT),
  });
}

describe("Streamable HTTP transport", () => {
  let srv: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => (srv = await start()));
  afterAll(async () => srv.close());

  it("serves two clients at once, each with its own session", async () => {
    const clients = [new Client({ name: "a", version: "1" }), new Client({ name: "b", version: "1" })];
    const transports = clients.map(() => new StreamableHTTPClientTransport(new URL(srv.handle.url)));
    await Promise.all(clients.map((c, i) => c.connect(transports[i]!)));
    try {
      expect(transports[0]!.sessionId).toBeTruthy();
      expect(transports[0]!.sessionId).not.toBe(transports[1]!.sessionId);
      const results = await Promise.all(clients.map((c) => c.callTool({ name: "status", arguments: {} })));
      for (const r of results) expect(textOf(r)).toMatch(/root: .* \(from flag\)/);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it("accepts a localhost Origin and rejects a foreign one (DNS rebinding)", async () => {
    const good = await post(srv.handle.url, { origin: "http://localhost:6274" });
    expect(good.status).toBe(200);
    const bad = await post(srv.handle.url, { origin: "http://evil.example" });
    expect(bad.status).toBe(403);
    expect(await bad.text()).toMatch(/Origin/);
  });

  it("checks Host and Origin by name, port-agnostic", () => {
    expect(isLocalRequest("127.0.0.1:7331", undefined, "127.0.0.1")).toBe(true);
    expect(isLocalRequest("[::1]:7331", "http://[::1]:3000", "127.0.0.1")).toBe(true);
    expect(isLocalRequest("attacker.example:7331", undefined, "127.0.0.1")).toBe(false);
    expect(isLocalRequest("localhost:7331", "https://localhost.evil.example", "127.0.0.1")).toBe(false);
    expect(isLocalRequest("localhost:7331", "null", "127.0.0.1")).toBe(false);
    expect(isLocalRequest(undefined, undefined, "127.0.0.1")).toBe(false);
  });

  it("answers 404 for other paths and 400 for a request without a session", async () => {
    expect((await fetch(srv.handle.url.replace("/mcp", "/other"))).status).toBe(404);
    const res = await fetch(srv.handle.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(res.status).toBe(400);
  });

  it("requires the bearer token when one is set", async () => {
    const guarded = await start("s3cret");
    try {
      expect((await post(guarded.handle.url, {})).status).toBe(401);
      expect((await post(guarded.handle.url, { authorization: "Bearer wrong" })).status).toBe(401);
      expect((await post(guarded.handle.url, { authorization: "Bearer s3cret" })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it("refuses a non-loopback bind without a token", async () => {
    await expect(
      serveHttp({ host: "0.0.0.0", port: 0, logger: silentLogger, newServer: () => undefined as never }),
    ).rejects.toThrow(/without a token/);
  });
});
