// Streamable HTTP transport on loopback: Host/Origin checks against DNS rebinding, optional bearer token, request
// bodies under a per-request cap, a global memory budget and a deadline, sessions that expire and make room.
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

import { HTTP_IDLE_TIMEOUT_SEC, HTTP_MAX_SESSIONS } from "../config.js";
import { AppError } from "../errors.js";
import { BODY_TIMEOUT_MS, MAX_BODY_MEMORY_BYTES, MAX_MESSAGE_BYTES } from "../limits.js";
import type { Logger } from "../log.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export interface HttpOptions {
  host: string;
  port: number;
  token?: string | undefined;
  /** A session with no request for this long is closed and forgotten (its id then gets 404). */
  idleTimeoutSec?: number | undefined;
  /**
   * Open sessions at most. At the cap, a new session takes the place of the least recently active one that has no
   * request in progress and has been idle for `evictIdleAfterSec`; with none such, the initialize gets 503.
   */
  maxSessions?: number | undefined;
  /** How long a session must have been idle before a new one may take its place at the cap (default 30 s). */
  evictIdleAfterSec?: number | undefined;
  /** Request body bytes held in memory at once across all requests (default MAX_BODY_MEMORY_BYTES). */
  bodyBudgetBytes?: number | undefined;
  /** Time for a request body to arrive once its headers have (default BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number | undefined;
  logger: Logger;
  /** Builds a fresh MCP server for each client session. */
  newServer(): McpServer;
}

/** What the transport holds right now (also logged at debug level as `http.body` and `http.sessions`). */
export interface HttpStats {
  /** Request body bytes held in memory now, across all requests. */
  bufferedBytes: number;
  /** The most ever held at once. */
  peakBufferedBytes: number;
  /** Bodies refused for the memory budget, and bodies cut off by the deadline. */
  refusedForBudget: number;
  timedOut: number;
  sessions: number;
  /** Open GET event streams. */
  streams: number;
  /** Sessions closed to make room for a new one. */
  evicted: number;
}

export interface HttpHandle {
  url: string;
  stats(): HttpStats;
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
/** A body that would take the bodies in flight past the memory budget: answered 503 at once. */
class OverBudget extends Error {}
/** A body not complete by its deadline: answered 408 and its connection closed. */
class BodyTimeout extends Error {}
/** The client went away mid-body: nothing to answer. */
class BodyAborted extends Error {}

/** Bytes of request bodies held in memory across all requests, against one budget. */
class BodyBudget {
  used = 0;
  peak = 0;
  refused = 0;
  timedOut = 0;
  constructor(readonly limit: number) {}
  take(n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    this.peak = Math.max(this.peak, this.used);
    return true;
  }
  give(n: number): void {
    this.used -= n;
  }
}

/** Bytes of an oversized body read and dropped before the connection is cut instead. */
const MAX_DRAIN_BYTES = 4 * MAX_MESSAGE_BYTES;

/**
 * Answers 413 once the client has finished sending (a reply mid-upload reaches many clients as a reset, not an
 * answer), dropping what it sends; a body past MAX_DRAIN_BYTES gets its connection cut. The connection closes.
 */
function tooLarge(req: IncomingMessage, res: ServerResponse, timeoutMs: number): void {
  // A client that stops sending mid-body is cut off at the deadline, not drained forever.
  const timer = setTimeout(() => req.destroy(), timeoutMs);
  req.once("close", () => clearTimeout(timer));
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

/**
 * Reads and parses a JSON body. Every chunk is counted against the shared budget before it is kept, and released
 * when the body is parsed, refused, timed out or abandoned, so bodies in flight never hold more than the budget.
 */
async function readJson(req: IncomingMessage, budget: BodyBudget, timeoutMs: number): Promise<unknown> {
  // Listeners rather than `for await`: leaving that loop early destroys the request, and an oversized body still
  // gets its 413 (see tooLarge), which needs the request alive.
  let chunks: Buffer[] = [];
  let size = 0;
  let held = 0;
  // A client that goes away may make the request emit an error after the listeners below are gone.
  req.on("error", () => undefined);
  try {
    await new Promise<void>((resolve, fail) => {
      const settle = (err?: Error) => {
        clearTimeout(timer);
        req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
        if (!err) return resolve();
        budget.give(held);
        held = 0;
        chunks = [];
        fail(err);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_MESSAGE_BYTES) return settle(new BodyTooLarge());
        if (!budget.take(chunk.length)) return settle(new OverBudget());
        held += chunk.length;
        chunks.push(chunk);
      };
      const onEnd = () => settle();
      const onError = (err: Error) => settle(err);
      const onClose = () => settle(new BodyAborted());
      const timer = setTimeout(() => settle(new BodyTimeout()), timeoutMs);
      req.on("data", onData).once("end", onEnd).once("error", onError).once("close", onClose);
    });
    const text = Buffer.concat(chunks).toString("utf8");
    chunks = [];
    return text ? (JSON.parse(text) as unknown) : undefined;
  } finally {
    budget.give(held);
  }
}

/** Refuses a request at once (503 or 408), reading and dropping what it still sends until its connection closes. */
function refuseBody(req: IncomingMessage, res: ServerResponse, status: number, message: string, timeoutMs: number) {
  const timer = setTimeout(() => req.destroy(), timeoutMs);
  req.once("close", () => clearTimeout(timer));
  req.once("error", () => undefined);
  req.resume();
  if (res.headersSent) return;
  res.setHeader("connection", "close");
  reject(res, status, message);
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  /** When its last request started or ended. */
  seen: number;
  /** Requests still in progress (a GET event stream is not one): a session is never idle while one is. */
  open: number;
  /** GET event streams open: they do not keep a session alive, and close with it. */
  streams: number;
}

/**
 * The open sessions: a sweep closes those idle past `idleMs`, and at the cap the least recently active one idle
 * for `evictMs` may give its place to a new one.
 */
class SessionTable {
  readonly byId = new Map<string, Session>();
  /** Sessions closed to make room for a new one. */
  evicted = 0;
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    readonly evictMs: number,
    private readonly logger: Logger,
  ) {
    this.sweep = setInterval(() => this.closeIdle(), Math.max(50, Math.min(idleMs / 4, 60_000)));
    this.sweep.unref();
  }

  get streams(): number {
    return [...this.byId.values()].reduce((n, s) => n + s.streams, 0);
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const [id, s] of this.byId) {
      if (s.open > 0 || now - s.seen < this.idleMs) continue;
      this.logger.info(`closing HTTP session ${id}: idle for ${Math.round((now - s.seen) / 1000)} s`);
      void this.close(id, s);
    }
  }

  async close(id: string, s: Session): Promise<void> {
    this.byId.delete(id);
    await s.transport.close().catch(() => undefined);
    await s.server.close().catch(() => undefined);
  }

  /**
   * Marks a session busy for the life of this request. A GET event stream only marks it seen when it opens: a
   * client that holds a stream and sends nothing is idle, and its session expires (closing the stream).
   */
  track(s: Session, req: IncomingMessage, res: ServerResponse): void {
    s.seen = Date.now();
    if (req.method === "GET") {
      s.streams++;
      res.once("close", () => s.streams--);
      return;
    }
    s.open++;
    res.once("close", () => {
      s.open--;
      s.seen = Date.now();
    });
  }

  /** Closes the least recently active session with no request in progress, idle for `evictMs`, if there is one. */
  async evictOne(): Promise<void> {
    const now = Date.now();
    let best: [string, Session] | undefined;
    for (const entry of this.byId) {
      const s = entry[1];
      if (s.open > 0 || now - s.seen < this.evictMs) continue;
      if (!best || s.seen < best[1].seen) best = entry;
    }
    if (!best) return;
    this.evicted++;
    this.logger.info(`closing HTTP session ${best[0]} to make room: idle for ${now - best[1].seen} ms`);
    await this.close(best[0], best[1]);
  }

  stopSweep(): void {
    clearInterval(this.sweep);
  }

  async closeAll(): Promise<void> {
    this.stopSweep();
    for (const [id, s] of [...this.byId]) await this.close(id, s);
  }
}

/**
 * Reads a POST body within the message cap, the shared budget and the deadline. `{ body }` once read; undefined
 * when the request has been answered instead (413, 503, 408, 400) or the client went away.
 */
async function readPostBody(
  req: IncomingMessage,
  res: ServerResponse,
  budget: BodyBudget,
  timeoutMs: number,
  logger: Logger,
): Promise<{ body: unknown } | undefined> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_MESSAGE_BYTES) return void tooLarge(req, res, timeoutMs);
  const busy = () => {
    budget.refused++;
    logger.warn(`refused a request body: ${budget.used} bytes of bodies in flight (budget ${budget.limit})`);
    refuseBody(req, res, 503, "Server busy: too many request bodies in flight; retry shortly", timeoutMs);
  };
  if (declared > budget.limit - budget.used) return void busy();
  try {
    return { body: await readJson(req, budget, timeoutMs) };
  } catch (err) {
    if (err instanceof BodyTooLarge) return void tooLarge(req, res, timeoutMs);
    if (err instanceof OverBudget) return void busy();
    if (err instanceof BodyAborted) return undefined;
    if (err instanceof BodyTimeout) {
      budget.timedOut++;
      logger.warn(`cut off a request body not complete after ${timeoutMs} ms`);
      refuseBody(req, res, 408, `Request timeout: the body did not arrive within ${timeoutMs} ms`, timeoutMs);
      return undefined;
    }
    return void reject(res, 400, `Bad request: ${(err as Error).message}`);
  } finally {
    logger.debug("http.body", { buffered: budget.used, peak: budget.peak });
  }
}

/**
 * Opens a session for an initialize request, making room at the cap by closing an idle session, and hands the
 * request to its transport; 503 when every open session is active.
 */
async function openSession(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  table: SessionTable,
  opts: HttpOptions,
  maxSessions: number,
): Promise<void> {
  if (table.byId.size >= maxSessions) await table.evictOne();
  if (table.byId.size >= maxSessions) {
    opts.logger.warn(`refused a new HTTP session: ${table.byId.size} open (limit ${maxSessions})`);
    return reject(
      res,
      503,
      `Too many sessions: ${table.byId.size} open (limit ${maxSessions}), all active; close one (DELETE /mcp) or retry once one has been idle ${table.evictMs / 1000} s`,
    );
  }
  const server = opts.newServer();
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      const s: Session = { transport, server, seen: Date.now(), open: 0, streams: 0 };
      table.byId.set(id, s);
      table.track(s, req, res);
      opts.logger.debug("http.sessions", { sessions: table.byId.size });
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) table.byId.delete(transport.sessionId);
  };
  await server.connect(transport);
  return transport.handleRequest(req, res, body);
}

/** Why a request may not reach the MCP endpoint (foreign Host/Origin, missing token, other path), answered. */
function refused(req: IncomingMessage, res: ServerResponse, opts: HttpOptions): boolean {
  if (!isLocalRequest(req.headers.host, req.headers.origin, opts.host)) {
    opts.logger.warn("rejected request with foreign Host/Origin", {
      host: req.headers.host,
      origin: req.headers.origin,
    });
    reject(res, 403, "Forbidden: Host or Origin is not this machine");
    return true;
  }
  if (opts.token && !tokenMatches(req.headers.authorization, opts.token)) {
    reject(res, 401, "Unauthorized: send Authorization: Bearer <token>");
    return true;
  }
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname !== "/mcp") {
    reject(res, 404, "Not found: the MCP endpoint is /mcp");
    return true;
  }
  return false;
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
  const idleMs = (opts.idleTimeoutSec ?? HTTP_IDLE_TIMEOUT_SEC) * 1000;
  const maxSessions = opts.maxSessions ?? HTTP_MAX_SESSIONS;
  const table = new SessionTable(idleMs, (opts.evictIdleAfterSec ?? 30) * 1000, opts.logger);
  const sessions = table.byId;
  const budget = new BodyBudget(opts.bodyBudgetBytes ?? MAX_BODY_MEMORY_BYTES);
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
  const stats = (): HttpStats => ({
    bufferedBytes: budget.used,
    peakBufferedBytes: budget.peak,
    refusedForBudget: budget.refused,
    timedOut: budget.timedOut,
    sessions: sessions.size,
    streams: table.streams,
    evicted: table.evicted,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (refused(req, res, opts)) return;
    const sid = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    // A request for a live session keeps it alive from its first byte: an upload slower than the idle timeout
    // must not find its session expired when its body is complete.
    const live = sessionId ? sessions.get(sessionId) : undefined;
    if (live) table.track(live, req, res);
    let body: unknown;
    if (req.method === "POST") {
      const read = await readPostBody(req, res, budget, bodyTimeoutMs, opts.logger);
      if (!read) return;
      body = read.body;
    }
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) {
      if (existing !== live) table.track(existing, req, res);
      return existing.transport.handleRequest(req, res, body);
    }
    if (sessionId) return reject(res, 404, "Session not found: initialize a new session");
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      return reject(res, 400, "Bad request: no session; the first request must be initialize");
    }
    return openSession(req, res, body, table, opts, maxSessions);
  };

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.logger.error(`http request failed: ${(err as Error).message}`);
      if (!res.headersSent) reject(res, 500, "Internal error");
    });
  });
  await new Promise<void>((resolve, rejectListen) => {
    http.once("error", (err) => {
      table.stopSweep();
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
    stats,
    async close() {
      await table.closeAll();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
