// `memcards ui`: a local web page over the project's store. Loopback only; Host/Origin checked as the HTTP transport
// does; a per-start token in the first URL becomes a cookie; every change (POST) carries a per-start CSRF token.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { createAdaptorServer } from "@hono/node-server";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { getCookie, setCookie } from "hono/cookie";

import type { App } from "../app.js";
import { AppError, toAppError } from "../errors.js";
import { auditMemory, exportMemory, importMemory, renderAudit, setPaused } from "../memory/admin.js";
import { pinUnit } from "../memory/curate.js";
import { setReviewMode } from "../memory/review.js";
import { purgeNote } from "../memory/service.js";
import { approveUnit, editUnit, rejectUnit } from "../session/curate.js";
import { forget } from "../session/memory.js";
import { sendQueued } from "../team/deps.js";
import { count } from "../text/plural.js";
import { isLocalRequest } from "../transport/http.js";
import { CSS, JS } from "./assets.js";
import { escapeHtml, type Html, html } from "./html.js";
import { cardsPage } from "./pages/cards.js";
import { graphPage } from "./pages/graph.js";
import { injectionsPage } from "./pages/injections.js";
import { layout, type PageContext } from "./pages/layout.js";
import { memoryPage } from "./pages/memory.js";
import { sessionsPage } from "./pages/sessions.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);
/** An import file or any form body at most this large. */
export const MAX_UI_BODY_BYTES = 10 * 1024 * 1024;

/** The per-start secrets: the URL token (then a cookie) and the CSRF token forms post back. */
export interface UiSecrets {
  token: string;
  csrf: string;
}

export function newSecrets(): UiSecrets {
  return { token: randomBytes(24).toString("base64url"), csrf: randomBytes(24).toString("base64url") };
}

function same(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A redirect target from a form: a path on this site only. Checked after the URL parser has normalised it too:
 * `/.//evil.example` is a path, but it becomes `//evil.example`, which a browser reads as another host.
 */
function safeBack(v: unknown, fallback: string): string {
  if (typeof v !== "string" || !v.startsWith("/") || v.startsWith("//") || v.includes("\\") || v.length >= 2000)
    return fallback;
  try {
    const u = new URL(v, "http://x");
    if (u.origin !== "http://x" || u.pathname.startsWith("//") || u.pathname.includes("\\")) return fallback;
    return `${u.pathname}${u.search}${u.hash}`;
  } catch {
    return fallback;
  }
}

/**
 * A change must come from a page of this very site: its Origin is exactly this server's (scheme, host and port),
 * not merely another local address (another local server's page could otherwise post here).
 */
function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (!origin || !host) return false;
  try {
    const own = new URL(`http://${host}`);
    return new URL(origin).origin === own.origin;
  } catch {
    return false;
  }
}

function withFlash(path: string, text: string, error = false): string {
  const u = new URL(path, "http://x");
  u.searchParams.delete("msg");
  u.searchParams.delete("err");
  u.searchParams.set(error ? "err" : "msg", text.slice(0, 300));
  return `${u.pathname}${u.search}${u.hash}`;
}

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  // Not no-referrer: with it, Chromium sends `Origin: null` on form posts, which the Origin check must refuse.
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

function plain(c: Context<UiEnv>, status: 400 | 401 | 403 | 404 | 413 | 500, message: string): Response {
  return c.body(`<!doctype html><meta charset="utf-8"><title>memcards</title><p>${escapeHtml(message)}</p>`, status, {
    "content-type": "text/html; charset=utf-8",
  });
}

/** A form's fields as parsed by Hono (strings and uploaded files). */
type BodyData = Record<string, string | File | (string | File)[]>;
type UiEnv = { Variables: { body: BodyData } };

const parseId = (v: string | undefined): number => {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0) throw new AppError("BAD_INPUT", `not a unit id: ${String(v).slice(0, 20)}`);
  return n;
};

/** The viewer's routes over one app; `boundHost` is the address it listens on (for the Host check). */
export function createUi(app: App, secrets: UiSecrets, boundHost: string): Hono<UiEnv> {
  const ui = new Hono<UiEnv>();
  guardRequests(ui, app, secrets, boundHost);
  registerPages(ui, app, secrets);
  registerChanges(ui, app);
  ui.notFound((c) => plain(c, 404, "Not found."));
  ui.onError((err, c) => {
    const e = toAppError(err);
    if (e.code === "NOT_FOUND") return plain(c, 404, e.message);
    if (e.code === "BAD_INPUT") return plain(c, 400, e.message);
    app.logger.error(`ui: ${c.req.method} ${new URL(c.req.url).pathname} failed: ${e.message}`);
    return plain(c, 500, `Internal error: ${e.message}`);
  });
  return ui;
}

/**
 * Every request: security headers, Host/Origin on this machine, this start's token (from the first URL, then its
 * cookie). Every change: a body under the cap, from this site's own origin, with this start's CSRF token.
 */
function guardRequests(ui: Hono<UiEnv>, app: App, secrets: UiSecrets, boundHost: string): void {
  const cookieName = (c: Context<UiEnv>) => `memcards_ui_${new URL(c.req.url).port || "80"}`;

  ui.use("*", async (c, next) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
    if (!isLocalRequest(c.req.header("host"), c.req.header("origin"), boundHost)) {
      app.logger.warn("ui: rejected a request with a foreign Host/Origin", {
        host: c.req.header("host"),
        origin: c.req.header("origin"),
      });
      return plain(c, 403, "Forbidden: Host or Origin is not this machine.");
    }
    const fromUrl = c.req.query("token");
    if (fromUrl !== undefined) {
      if (!same(fromUrl, secrets.token) || c.req.method !== "GET")
        return plain(c, 401, "Unauthorized: this token is not the one memcards ui printed at its start.");
      setCookie(c, cookieName(c), secrets.token, { httpOnly: true, sameSite: "Strict", path: "/" });
      const u = new URL(c.req.url);
      u.searchParams.delete("token");
      return c.redirect(`${u.pathname}${u.search}`, 303);
    }
    if (!same(getCookie(c, cookieName(c)), secrets.token))
      return plain(c, 401, "Unauthorized: open the URL memcards ui printed (it carries this start's token).");
    return next();
  });

  ui.post(
    "*",
    bodyLimit({
      maxSize: MAX_UI_BODY_BYTES,
      onError: (c) => plain(c, 413, `Too large: a form may be at most ${MAX_UI_BODY_BYTES} bytes.`),
    }),
    async (c, next) => {
      if (!sameOrigin(c.req.header("origin"), c.req.header("host"))) {
        app.logger.warn("ui: rejected a change from another origin", { origin: c.req.header("origin") });
        return plain(c, 403, "Forbidden: a change must come from this viewer's own pages.");
      }
      let body: BodyData;
      try {
        body = await c.req.parseBody();
      } catch {
        return plain(c, 400, "Bad request: the form body could not be read.");
      }
      if (!same(typeof body.csrf === "string" ? body.csrf : undefined, secrets.csrf))
        return plain(c, 403, "Forbidden: this change is missing its CSRF token; reload the page and try again.");
      c.set("body", body);
      return next();
    },
  );
}

/** The pages, their assets, the audit and the export. */
function registerPages(ui: Hono<UiEnv>, app: App, secrets: UiSecrets): void {
  const ctxOf = (c: Context<UiEnv>): PageContext => {
    const msg = c.req.query("msg");
    const err = c.req.query("err");
    return {
      csrf: secrets.csrf,
      projectName: app.project.name,
      projectRoot: app.location.root,
      flash: err ? { text: err, error: true } : msg ? { text: msg, error: false } : undefined,
    };
  };
  const page = (
    path: string,
    title: string,
    render: (ctx: PageContext, params: URLSearchParams) => Html | Promise<Html>,
  ) =>
    ui.get(path, async (c) => {
      const ctx = ctxOf(c);
      const body = await render(ctx, new URL(c.req.url).searchParams);
      return c.html(layout(ctx, path, title, body));
    });

  ui.get("/static/app.css", (c) => c.body(CSS, 200, { "content-type": "text/css; charset=utf-8" }));
  ui.get("/static/app.js", (c) => c.body(JS, 200, { "content-type": "text/javascript; charset=utf-8" }));
  ui.get("/", (c) => c.redirect("/memory", 303));
  ui.get("/favicon.ico", (c) => c.body(null, 204));
  page("/memory", "Memory", (ctx, p) => memoryPage(app, ctx, p));
  page("/sessions", "Sessions", (ctx, p) => sessionsPage(app, ctx, p));
  page("/injections", "Injections", (ctx) => injectionsPage(app, ctx));
  page("/cards", "Cards", (ctx) => cardsPage(app, ctx));
  page("/graph", "Graph", (ctx, p) => graphPage(app, ctx, p));
  page(
    "/memory/audit",
    "Memory audit",
    () =>
      html`<pre>${renderAudit(auditMemory(app.db, app.project.id))}</pre>
        <p><a href="/memory">Back to memory</a></p>`,
  );
  ui.get("/memory/export.jsonl", (c) => {
    const text = exportMemory(app.db, app.project.id, true);
    return c.body(text ? `${text}\n` : "", 200, {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": 'attachment; filename="memcards-export.jsonl"',
    });
  });
}

/** The changes a person makes from the pages: curation, forget, pause, review mode, import. */
function registerChanges(ui: Hono<UiEnv>, app: App): void {
  /** A change: runs `fn` with the form body, then back to the page it came from with what happened. */
  const change = (path: string, fn: (body: BodyData, c: Context<UiEnv>) => string | Promise<string>) =>
    ui.post(path, async (c) => {
      const body = c.get("body");
      const back = safeBack(body.back, "/memory");
      try {
        return c.redirect(withFlash(back, await fn(body, c)), 303);
      } catch (err) {
        const e = toAppError(err);
        if (e.code !== "BAD_INPUT" && e.code !== "NOT_FOUND") throw err;
        return c.redirect(withFlash(back, e.message, true), 303);
      }
    });
  const scope = app.scope;
  /** A change the team shares is sent now when the project is linked, or stays queued; the flash says which. */
  const shared = async (done: string) => {
    const note = await sendQueued(scope, app.config.team);
    return note ? `${done}; ${note}` : done;
  };
  change("/memory/:id/edit", (b, c) => {
    const id = parseId(c.req.param("id"));
    editUnit(scope, id, typeof b.text === "string" ? b.text : "");
    return shared(`unit #${id} saved`);
  });
  change("/memory/:id/pin", (_b, c) => {
    const id = parseId(c.req.param("id"));
    pinUnit(scope, id, true);
    return `unit #${id} pinned`;
  });
  change("/memory/:id/unpin", (_b, c) => {
    const id = parseId(c.req.param("id"));
    pinUnit(scope, id, false);
    return `unit #${id} unpinned`;
  });
  change("/memory/:id/forget", (_b, c) => {
    const id = parseId(c.req.param("id"));
    const r = forget(scope, { id });
    return shared(r.purged ? `unit #${id} forgotten` : `unit #${id} forgotten; ${purgeNote(r)}`);
  });
  change("/memory/:id/approve", (_b, c) => {
    const id = parseId(c.req.param("id"));
    const r = approveUnit(scope, id);
    return shared(
      [
        `unit #${id} approved`,
        ...(r.superseded !== undefined ? [`it supersedes #${r.superseded}`] : []),
        ...(r.conflictsWith !== undefined ? [`it conflicts with #${r.conflictsWith} (both kept)`] : []),
      ].join("; "),
    );
  });
  change("/memory/:id/reject", (_b, c) => {
    const id = parseId(c.req.param("id"));
    rejectUnit(scope, id);
    return shared(`unit #${id} rejected and deleted`);
  });
  change("/project/pause", () => {
    setPaused(app.db, app.project.id, true);
    return "memory paused: nothing from conversations is stored until you resume";
  });
  change("/project/resume", () => {
    setPaused(app.db, app.project.id, false);
    return "memory resumed";
  });
  change("/project/review", (b) => {
    const on = b.on === "1";
    setReviewMode(app.db, app.project.id, on);
    return on ? "review mode on: new units wait for approval" : "review mode off";
  });
  change("/memory/import", async (b) => {
    const file = b.file;
    if (!(file instanceof File)) throw new AppError("BAD_INPUT", "choose a JSONL export to import");
    const dir = mkdtempSync(join(tmpdir(), "memcards-import-"));
    try {
      const path = join(dir, "import.jsonl");
      writeFileSync(path, Buffer.from(await file.arrayBuffer()), { mode: 0o600 });
      const r = importMemory(app.db, app.project.id, path);
      return `imported ${r.imported}, merged ${r.merged}, skipped ${count(r.skipped, "line")}`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

export interface UiOptions {
  host?: string | undefined;
  port?: number | undefined;
  secrets?: UiSecrets | undefined;
}

export interface UiHandle {
  /** The URL to open: it carries this start's token. */
  url: string;
  /** The site's origin (no token). */
  origin: string;
  secrets: UiSecrets;
  close(): Promise<void>;
}

/** Starts the viewer on loopback; resolves once it listens. */
export async function startUi(app: App, opts: UiOptions = {}): Promise<UiHandle> {
  const host = opts.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host))
    throw new AppError("BAD_INPUT", `memcards ui serves on loopback only (127.0.0.1, ::1, localhost), not ${host}`);
  const secrets = opts.secrets ?? newSecrets();
  const ui = createUi(app, secrets, host);
  const server = createAdaptorServer({ fetch: ui.fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) =>
      reject(new AppError("BAD_INPUT", `cannot listen on ${host}:${opts.port ?? 0}: ${err.message}`, { cause: err })),
    );
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const origin = `http://${addr.family === "IPv6" ? `[${addr.address}]` : addr.address}:${addr.port}`;
  return {
    url: `${origin}/memory?token=${secrets.token}`,
    origin,
    secrets,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
