// A small HTTP client for the viewer's tests: takes the start URL's token as a browser would (the cookie), and
// posts forms with or without the CSRF token.
import type { UiHandle } from "../../src/ui/server.js";

export interface UiClient {
  cookie: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** Posts a form; the CSRF token is added unless `csrf` is given (use `null` to leave it out). */
  post(
    path: string,
    fields?: Record<string, string>,
    opts?: { csrf?: string | null; headers?: Record<string, string> },
  ): Promise<Response>;
}

export async function login(ui: UiHandle): Promise<UiClient> {
  const first = await fetch(ui.url, { redirect: "manual" });
  if (first.status !== 303) throw new Error(`the start URL answered ${first.status}`);
  const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return {
    cookie,
    get: (path, headers = {}) => fetch(`${ui.origin}${path}`, { headers: { cookie, ...headers }, redirect: "manual" }),
    post: (path, fields = {}, opts = {}) => {
      const form = new URLSearchParams(fields);
      const csrf = opts.csrf === undefined ? ui.secrets.csrf : opts.csrf;
      if (csrf !== null) form.set("csrf", csrf);
      return fetch(`${ui.origin}${path}`, {
        method: "POST",
        headers: { cookie, origin: ui.origin, "content-type": "application/x-www-form-urlencoded", ...opts.headers },
        body: form.toString(),
        redirect: "manual",
      });
    },
  };
}
