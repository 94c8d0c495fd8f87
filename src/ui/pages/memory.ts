// The Memory page: units by category, tier, status and time with their evidence, history, conflicts and stale
// flags; search as search_memory runs it; edit, pin, forget, approve/reject; review mode, pause, export/import.
import type { App } from "../../app.js";
import { isPaused } from "../../memory/admin.js";
import { browseUnits, type MemoryRow, unitContext, unitFacets, unitsById } from "../../memory/browse.js";
import { isReviewMode } from "../../memory/review.js";
import { searchMemoryHybrid } from "../../memory/service.js";
import { count as countOf } from "../../text/plural.js";
import { UnitCategory } from "../../vocab.js";
import { type Html, html, qs, when } from "../html.js";
import { actionForm, csrfField, type PageContext } from "./layout.js";

const PAGE_SIZE = 50;
const TIERS = ["warm", "cold"] as const;
const STATUSES = ["active", "pending", "conflict", "superseded"] as const;

function pick<T extends string>(value: string | null, allowed: readonly T[]): T | undefined {
  return allowed.find((a) => a === value);
}

function unitCard(app: App, ctx: PageContext, u: MemoryRow, back: string, score?: number): Html {
  const pinned = u.record.pinned === true;
  const { history, conflict, staleFiles: stale } = unitContext(app.scope, u);
  const editId = `edit-${u.id}`;
  return html`<article class="unit" id="unit-${u.id}" data-unit="${u.id}">
    <div>
      <strong>#${u.id}</strong>
      <span class="chip">${u.category}</span><span class="chip">${u.tier}</span>
      <span class="chip ${u.status === "active" ? "ok" : u.status === "pending" ? "warn" : "bad"}">${u.status}</span>
      ${pinned ? html`<span class="chip ok">pinned</span>` : ""}
      ${stale.length ? html`<span class="chip warn" title="${stale.join(", ")}">stale</span>` : ""}
      <span class="muted small"
        >confidence ${u.confidence.toFixed(2)} · importance ${u.importance.toFixed(2)} ·
        ${when(u.created_at)}${u.updated_at !== u.created_at ? ` (updated ${when(u.updated_at)})` : ""}
        ${score !== undefined ? ` · score ${score}` : ""}</span
      >
    </div>
    <div class="text">${u.text}</div>
    ${u.files.length ? html`<div class="small">files: ${u.files.map((f) => html`<code>${f}</code> `)}</div>` : ""}
    ${
      u.evidence.length
        ? html`<details class="small">
            <summary>evidence (${u.evidence.length})</summary>
            <ul>
              ${u.evidence.map(
                (e) =>
                  html`<li>
                    ${e.session ? html`<a href="/sessions${qs({ session: e.session })}">${e.session}</a>` : ""} turn
                    ${e.turn}: “${e.quote.slice(0, 300)}”
                  </li>`,
              )}
            </ul>
          </details>`
        : html`<div class="small muted">no evidence</div>`
    }
    ${
      history.length
        ? html`<div class="small">supersedes: ${history.map((h) => html`#${h.id} “${h.text.slice(0, 80)}” `)}</div>`
        : ""
    }
    ${u.superseded_by ? html`<div class="small">superseded by <a href="#unit-${u.superseded_by}">#${u.superseded_by}</a></div>` : ""}
    ${conflict ? html`<div class="small chip bad">conflicts with #${conflict.id}: “${conflict.text.slice(0, 120)}”</div>` : ""}
    <div class="actions">
      <button type="button" data-toggle="${editId}" aria-expanded="false" aria-controls="${editId}">Edit</button>
      ${
        pinned
          ? actionForm(ctx, `/memory/${u.id}/unpin`, "Unpin", { back })
          : actionForm(ctx, `/memory/${u.id}/pin`, "Pin", { back })
      }
      ${
        u.status === "pending"
          ? html`${actionForm(ctx, `/memory/${u.id}/approve`, "Approve", { back })}${actionForm(
              ctx,
              `/memory/${u.id}/reject`,
              "Reject",
              { back, danger: true, confirm: `Reject and delete unit #${u.id}?` },
            )}`
          : ""
      }
      ${actionForm(ctx, `/memory/${u.id}/forget`, "Forget", {
        back,
        danger: true,
        confirm: `Forget unit #${u.id} for good?`,
      })}
    </div>
    <form method="post" action="/memory/${u.id}/edit" id="${editId}" hidden>
      ${csrfField(ctx)}<input type="hidden" name="back" value="${back}" />
      <label class="small muted" for="${editId}-text">Text of #${u.id}</label>
      <textarea id="${editId}-text" name="text" maxlength="4000">${u.text}</textarea>
      <button type="submit">Save</button>
    </form>
  </article>`;
}

function projectPanel(app: App, ctx: PageContext, back: string): Html {
  const paused = isPaused(app.db, app.project.id);
  const review = isReviewMode(app.db, app.project.id);
  return html`<section class="panel" aria-label="Project settings">
    <div class="actions">
      <span>Memory is <strong>${paused ? "paused" : "on"}</strong></span>
      ${actionForm(ctx, paused ? "/project/resume" : "/project/pause", paused ? "Resume" : "Pause", { back })}
      <span>· Review mode <strong>${review ? "on" : "off"}</strong></span>
      ${actionForm(ctx, "/project/review", review ? "Turn review off" : "Turn review on", {
        back,
        fields: { on: review ? "0" : "1" },
      })}
      <span>·</span>
      <a href="/memory/export.jsonl" download>Export (JSONL)</a>
      <form method="post" action="/memory/import" enctype="multipart/form-data">
        ${csrfField(ctx)}<label class="small"
          >Import <input type="file" name="file" accept=".jsonl,.json,.txt" required
        /></label>
        <button type="submit">Import</button>
      </form>
    </div>
    <p class="small muted">
      ${
        review
          ? "New distilled units wait here (status pending) and are used by no recall or card until approved."
          : "Turn review mode on to approve each new distilled unit before recall and cards use it."
      }
    </p>
  </section>`;
}

export async function memoryPage(app: App, ctx: PageContext, params: URLSearchParams): Promise<Html> {
  const query = (params.get("q") ?? "").trim().slice(0, 500);
  const category = pick(params.get("category"), UnitCategory.options);
  const tier = pick(params.get("tier"), TIERS);
  const status = pick(params.get("status"), STATUSES);
  const since = /^\d{4}-\d{2}-\d{2}$/.test(params.get("since") ?? "") ? (params.get("since") ?? undefined) : undefined;
  const page = Math.max(1, Math.min(10_000, Number.parseInt(params.get("page") ?? "1", 10) || 1));
  // A page after the first starts at the unit last shown on its neighbour (keyset): as cheap as the first page.
  const unitId = (name: string) => {
    const v = Number.parseInt(params.get(name) ?? "", 10);
    return Number.isSafeInteger(v) && v > 0 ? v : undefined;
  };
  const before = unitId("before");
  const after = before === undefined ? unitId("after") : undefined;
  const back = `/memory${qs({ q: query, category, tier, status, since, before, after, page: page > 1 ? page : undefined })}`;
  const facets = unitFacets(app.scope);
  const count = (f: (r: (typeof facets)[number]) => boolean) => facets.filter(f).reduce((n, r) => n + r.n, 0);
  const option = (value: string, current: string | undefined, n: number) =>
    html`<option value="${value}" ${value === current ? "selected" : ""}>${value} (${n})</option>`;
  let list: Html;
  if (query) {
    const r = await searchMemoryHybrid(
      app.scope,
      {
        query,
        ...(category ? { category } : {}),
        tier: tier ?? "any",
        includeInactive: status !== undefined && status !== "active",
        ...(since ? { since } : {}),
        limit: 50,
      },
      app.embedding,
      { includePending: true },
    );
    const hits = r.hits.filter((h) => !status || h.status === status);
    const units = unitsById(
      app.scope,
      hits.map((h) => h.id),
    );
    const score = new Map(hits.map((h) => [h.id, h.score]));
    list = html`<p class="muted" role="status">${countOf(units.length, "unit")} matching “${query}”</p>
      ${units.map((u) => unitCard(app, ctx, u, back, score.get(u.id)))}`;
  } else {
    const { units, total } = browseUnits(
      app.scope,
      { category, tier, status, since },
      PAGE_SIZE,
      before !== undefined ? { before } : after !== undefined ? { after } : { offset: (page - 1) * PAGE_SIZE },
    );
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    // A page emptied since its link was made (its units forgotten) still leads on, from the cursor it was given.
    const newest = units[0]?.id ?? (before !== undefined ? before - 1 : undefined);
    const oldest = units.at(-1)?.id ?? (after !== undefined ? after + 1 : undefined);
    const link = (p: number, label: string, from: { before?: number; after?: number }) =>
      html`<a href="/memory${qs({ category, tier, status, since, ...(p > 1 ? { ...from, page: p } : {}) })}"
        >${label}</a
      >`;
    list = html`<p class="muted" role="status">${countOf(total, "unit")}, page ${page} of ${pages}</p>
      ${units.map((u) => unitCard(app, ctx, u, back))}
      <nav class="actions" aria-label="Pages of units">
        ${page > 1 ? link(page - 1, "← newer", newest !== undefined ? { after: newest } : {}) : ""}
        ${page < pages ? link(page + 1, "older →", oldest !== undefined ? { before: oldest } : {}) : ""}
      </nav>`;
  }
  const pending = count((r) => r.status === "pending");
  return html`${projectPanel(app, ctx, back)}
    ${pending ? html`<p class="flash"><a href="/memory?status=pending">${countOf(pending, "unit")} waiting for review</a></p>` : ""}
    <form class="filters" method="get" action="/memory" role="search">
      <label
        >Search (/) <input type="search" name="q" value="${query}" placeholder="words, paths, identifiers"
      /></label>
      <label
        >Category
        <select name="category">
          <option value="">any</option>
          ${UnitCategory.options.map((c) =>
            option(
              c,
              category,
              count((r) => r.category === c),
            ),
          )}
        </select></label
      >
      <label
        >Tier
        <select name="tier">
          <option value="">any</option>
          ${TIERS.map((t) =>
            option(
              t,
              tier,
              count((r) => r.tier === t),
            ),
          )}
        </select></label
      >
      <label
        >Status
        <select name="status">
          <option value="">any</option>
          ${STATUSES.map((s) =>
            option(
              s,
              status,
              count((r) => r.status === s),
            ),
          )}
        </select></label
      >
      <label>Since <input type="date" name="since" value="${since ?? ""}" /></label>
      <button type="submit">Show</button>
      <a href="/memory/audit">Audit</a>
    </form>
    ${list}`;
}
