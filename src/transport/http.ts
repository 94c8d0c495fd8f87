// Streamable HTTP transport on loopback: Host/Origin checks against DNS rebinding, optional bearer token.
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

import { AppError } from "../errors.js";
import type { Logger } from "../log.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const MAX_BODY = 8 * 1024 * 1024;

export interface HttpOptions {
  host: string;
  port: number;
  token?: string | undefined;
  logger: Logger;
  /** Builds a fresh MCP server for each client session. */
  newServer(): McpServer;
}

export interface HttpHandle {
  url: string;
  close(): Promise<void>;
}

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  return hostHeader.split(":")[0] ?? "";
}

/** True when the request's Host and Origin name this machine; anything else may be a DNS-rebinding page. */
export function isLocalRequest(host: string | undefined, origin: string | undefined, boundHost: string): boolean {
  if (!host) return false;
  const allowed = new Set([...LOOPBACK, boundHost]);
  if (!allowed.has(hostnameOf(host))) return false;
  if (origin === undefined || origin === "null") return origin === undefined;
  try {
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") && allowed.has(u.hostname);
  } catch {
    return false;
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? "");
  if (!m?.[1]) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function reject(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new AppError("BAD_INPUT", `request body over ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** Starts the HTTP server; resolves once it listens. */
export async function serveHttp(opts: HttpOptions): Promise<HttpHandle> {
  const loopback = LOOPBACK.has(opts.host);
  if (!loopback && !opts.token) {
    throw new AppError(
      "BAD_INPUT",
      `refusing to serve on ${opts.host} without a token: bind to 127.0.0.1, or set --token / MEMCARDS_HTTP_TOKEN`,
    );
  }
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!isLocalRequest(req.headers.host, req.headers.origin, opts.host)) {
      opts.logger.warn("rejected request with foreign Host/Origin", {
        host: req.headers.host,
        origin: req.headers.origin,
      });
      return reject(res, 403, "Forbidden: Host or Origin is not this machine");
    }
    if (opts.token && !tokenMatches(req.headers.authorization, opts.token)) {
      return reject(res, 401, "Unauthorized: send Authorization: Bearer <token>");
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== "/mcp") return reject(res, 404, "Not found: the MCP endpoint is /mcp");

    const sid = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    let body: unknown;
    if (req.method === "POST") {
      try {
        body = await readJson(req);
      } catch (err) {
        return reject(res, 400, `Bad request: ${(err as Error).message}`);
      }
    }
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) return existing.transport.handleRequest(req, res, body);
    if (sessionId) return reject(res, 404, "Session not found: initialize a new session");
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      return reject(res, 400, "Bad request: no session; the first request must be initialize");
    }
    const server = opts.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(req, res, body);
  };

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.logger.error(`http request failed: ${(err as Error).message}`);
      if (!res.headersSent) reject(res, 500, "Internal error");
    });
  });
  await new Promise<void>((resolve, rejectListen) => {
    http.once("error", (err) =>
      rejectListen(
        new AppError("BAD_INPUT", `cannot listen on ${opts.host}:${opts.port}: ${err.message}`, { cause: err }),
      ),
    );
    http.listen(opts.port, opts.host, () => resolve());
  });
  const addr = http.address() as AddressInfo;
  const hostForUrl = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${hostForUrl}:${addr.port}/mcp`,
    async close() {
      for (const { transport, server } of sessions.values()) {
        await transport.close().catch(() => undefined);
        await server.close().catch(() => undefined);
      }
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
