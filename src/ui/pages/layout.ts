// The page frame: navigation, project name, flash message; forms carry the CSRF token through `csrfField`.
import { type Html, html } from "../html.js";

/** What every page renders with. */
export interface PageContext {
  /** The CSRF token every form posts back. */
  csrf: string;
  projectName: string;
  projectRoot: string;
  /** A message carried over a redirect (`msg`, `err` query values). */
  flash?: { text: string; error: boolean } | undefined;
}

export const PAGES = [
  { path: "/memory", title: "Memory", key: "m" },
  { path: "/sessions", title: "Sessions", key: "s" },
  { path: "/injections", title: "Injections", key: "i" },
  { path: "/cards", title: "Cards", key: "c" },
  { path: "/graph", title: "Graph", key: "r" },
] as const;

export function csrfField(ctx: PageContext): Html {
  return html`<input type="hidden" name="csrf" value="${ctx.csrf}" />`;
}

/** A one-button POST form (an action on the store). */
export function actionForm(
  ctx: PageContext,
  action: string,
  label: string,
  opts: { back?: string; confirm?: string; danger?: boolean; fields?: Record<string, string> } = {},
): Html {
  return html`<form method="post" action="${action}" ${opts.confirm ? html`data-confirm="${opts.confirm}"` : ""}>
    ${csrfField(ctx)}${opts.back ? html`<input type="hidden" name="back" value="${opts.back}" />` : ""}${Object.entries(
      opts.fields ?? {},
    ).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <button type="submit" ${opts.danger ? html`class="danger"` : ""}>${label}</button>
  </form>`;
}

export function layout(ctx: PageContext, current: string, title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${title} · memcards</title>
        <link rel="stylesheet" href="/static/app.css" />
        <script src="/static/app.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <span class="brand">memcards</span>
          <nav aria-label="Pages">
            ${PAGES.map(
              (p) =>
                html`<a href="${p.path}" ${p.path === current ? html`aria-current="page"` : ""} title="g ${p.key}"
                  >${p.title}</a
                >`,
            )}
          </nav>
          <span class="project" title="${ctx.projectRoot}">${ctx.projectName}</span>
        </header>
        <main id="main" tabindex="-1">
          ${
            ctx.flash
              ? html`<p class="flash ${ctx.flash.error ? "error" : ""}" role="status">${ctx.flash.text}</p>`
              : ""
          }
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`.value;
}
