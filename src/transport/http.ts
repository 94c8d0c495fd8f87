// Streamable HTTP transport on loopback: Host/Origin checks against DNS rebinding, optional bearer token.
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

import { HTTP_IDLE_TIMEOUT_SEC, HTTP_MAX_SESSIONS } from "../config.js";
import { AppError } from "../errors.js";
import { MAX_MESSAGE_BYTES } from "../limits.js";
import type { Logger } from "../log.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export interface HttpOptions {
  host: string;
  port: number;
  token?: string | undefined;
  /** A session with no request for this long is closed and forgotten (its id then gets 404). */
  idleTimeoutSec?: number | undefined;
  /** Open sessions at most; an initialize beyond it is refused until one closes or expires. */
  maxSessions?: number | undefined;
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

/** A body over the message cap: answered 413 on a connection that is then closed, so no unread bytes linger. */
class BodyTooLarge extends Error {}

/** Bytes of an oversized body read and dropped before the connection is cut instead. */
const MAX_DRAIN_BYTES = 4 * MAX_MESSAGE_BYTES;

/**
 * Answers 413 once the client has finished sending (a reply mid-upload reaches many clients as a reset, not an
 * answer), dropping what it sends; a body past MAX_DRAIN_BYTES gets its connection cut. The connection closes.
 */
function tooLarge(req: IncomingMessage, res: ServerResponse): void {
  const answer = () => {
    if (res.headersSent) return;
    res.setHeader("connection", "close");
    reject(res, 413, `Payload too large: a message may be at most ${MAX_MESSAGE_BYTES} bytes`);
  };
  if (req.readableEnded) return answer();
  let drained = 0;
  req.on("data", (c: Buffer) => {
    drained += c.length;
    if (drained > MAX_DRAIN_BYTES) req.destroy();
  });
  req.once("end", answer);
  req.once("error", () => undefined);
  req.resume();
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  // Listeners rather than `for await`: leaving that loop early destroys the request, and an oversized body still
  // gets its 413 (see tooLarge), which needs the request alive.
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, fail) => {
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_MESSAGE_BYTES) return void chunks.push(chunk);
      req.off("data", onData).off("end", resolve);
      fail(new BodyTooLarge());
    };
    req.on("data", onData).once("end", resolve).once("error", fail);
  });
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as unknown) : undefined;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  /** When its last request started or ended. */
  seen: number;
  /** Requests (and event streams) still open: a session is never idle while one is. */
  open: number;
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
  const sessions = new Map<string, Session>();
  const idleSec = opts.idleTimeoutSec ?? HTTP_IDLE_TIMEOUT_SEC;
  const maxSessions = opts.maxSessions ?? HTTP_MAX_SESSIONS;
  const idleMs = idleSec * 1000;
  const closeSession = async (id: string, s: Session) => {
    sessions.delete(id);
    await s.transport.close().catch(() => undefined);
    await s.server.close().catch(() => undefined);
  };
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions) {
        if (s.open > 0 || now - s.seen < idleMs) continue;
        opts.logger.info(`closing HTTP session ${id}: idle for ${Math.round((now - s.seen) / 1000)} s`);
        void closeSession(id, s);
      }
    },
    Math.max(50, Math.min(idleMs / 4, 60_000)),
  );
  sweep.unref();
  /** Marks a session busy for the life of this request. */
  const track = (s: Session, res: ServerResponse) => {
    s.open++;
    s.seen = Date.now();
    res.once("close", () => {
      s.open--;
      s.seen = Date.now();
    });
  };

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
    // A request for a live session keeps it alive from its first byte: an upload slower than the idle timeout
    // must not find its session expired when its body is complete.
    const live = sessionId ? sessions.get(sessionId) : undefined;
    if (live) track(live, res);
    let body: unknown;
    if (req.method === "POST") {
      if (Number(req.headers["content-length"] ?? 0) > MAX_MESSAGE_BYTES) return tooLarge(req, res);
      try {
        body = await readJson(req);
      } catch (err) {
        if (err instanceof BodyTooLarge) return tooLarge(req, res);
        return reject(res, 400, `Bad request: ${(err as Error).message}`);
      }
    }
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) {
      if (existing !== live) track(existing, res);
      return existing.transport.handleRequest(req, res, body);
    }
    if (sessionId) return reject(res, 404, "Session not found: initialize a new session");
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      return reject(res, 400, "Bad request: no session; the first request must be initialize");
    }
    if (sessions.size >= maxSessions) {
      opts.logger.warn(`refused a new HTTP session: ${sessions.size} open (limit ${maxSessions})`);
      return reject(
        res,
        503,
        `Too many sessions: ${sessions.size} open (limit ${maxSessions}); close one (DELETE /mcp) or wait ${idleSec} s for idle ones to expire`,
      );
    }
    const server = opts.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const s: Session = { transport, server, seen: Date.now(), open: 0 };
        sessions.set(id, s);
        track(s, res);
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
    http.once("error", (err) => {
      clearInterval(sweep);
      rejectListen(
        new AppError("BAD_INPUT", `cannot listen on ${opts.host}:${opts.port}: ${err.message}`, { cause: err }),
      );
    });
    http.listen(opts.port, opts.host, () => resolve());
  });
  const addr = http.address() as AddressInfo;
  const hostForUrl = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${hostForUrl}:${addr.port}/mcp`,
    async close() {
      clearInterval(sweep);
      for (const [id, s] of [...sessions]) await closeSession(id, s);
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
