// The viewer on a store of 10,000 units: every page renders, a memory page lists one page of units however many
// the store holds, and filters and search reach the units they name. (How fast is for benchmarks, not tests.)
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { writeTx } from "../../src/storage/db.js";
import { indexMemory, insertMemory } from "../../src/storage/memories.js";
import { identifierTokens } from "../../src/text/identifiers.js";
import { startUi, type UiHandle } from "../../src/ui/server.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";
import { login, type UiClient } from "./client.js";

const UNITS = 10_000;
const CATEGORIES = ["commitment", "failure", "learning", "reasoning", "preference", "performance"];

let app: App;
let ui: UiHandle;
let client: UiClient;

beforeAll(async () => {
  const root = tmpDir("memcards-ui-perf-");
  const dbPath = join(tmpDir(), "perf.db");
  const seed = openTestApp(root, dbPath);
  const now = new Date().toISOString();
  writeTx(seed.db, () => {
    for (let i = 0; i < UNITS; i++) {
      const category = CATEGORIES[i % CATEGORIES.length]!;
      const text = `Unit ${i}: keep module${i % 97}/file${i % 13}.ts under ${i % 50} ms and call helper${i % 211} first`;
      const id = insertMemory(seed.db, {
        project_id: seed.project.id,
        session_id: `s${i % 40}`,
        category,
        text,
        record: {},
        merge_key: `k${i}`,
        confidence: 0.8,
        importance: 0.6,
        tier: i % 3 ? "warm" : "cold",
        status: "active",
        superseded_by: null,
        conflicts_with: null,
        evidence: [{ session: `s${i % 40}`, turn: `t${i}`, quote: text }],
        files: [`module${i % 97}/file${i % 13}.ts`],
        created_at: now,
        updated_at: now,
      });
      indexMemory(seed.db, id, identifierTokens(`${category} ${text}`).join(" "));
    }
  });
  await seed.close();
  app = openTestApp(root, dbPath);
  ui = await startUi(app);
  client = await login(ui);
}, 120_000);

afterAll(async () => {
  await ui?.close();
  await app?.close();
});

async function page(path: string): Promise<string> {
  const r = await client.get(path);
  expect(r.status, path).toBe(200);
  return r.text();
}

const unitsOn = (html: string) => html.match(/<article class="unit/g)?.length ?? 0;

describe(`memcards ui on ${UNITS.toLocaleString("en-US")} units`, () => {
  it("renders every page", async () => {
    for (const path of ["/memory", "/sessions", "/cards", "/graph"]) expect(await page(path), path).toContain("<h1>");
  });

  it("lists one page of units at a time, filtered and searched", async () => {
    const first = unitsOn(await page("/memory"));
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(50);
    const failures = await page("/memory?category=failure&tier=warm&page=20");
    expect(unitsOn(failures)).toBeGreaterThan(0);
    expect(unitsOn(failures)).toBeLessThanOrEqual(50);
    const found = await page("/memory?q=helper42");
    expect(unitsOn(found)).toBeGreaterThan(0);
    expect(found).toContain("helper42");
  });

  it("walks every unit of a filter by the older links, each page starting after the last unit shown", async () => {
    const idsOn = (html: string) =>
      [...html.matchAll(/<article class="unit" id="unit-(\d+)"/g)].map((m) => Number(m[1]));
    const older = (html: string) => /<a href="(\/memory\?[^"]*)"\s*>older/.exec(html)?.[1]?.replace(/&amp;/g, "&");
    const newer = (html: string) => /<a href="(\/memory\?[^"]*)"\s*>← newer/.exec(html)?.[1]?.replace(/&amp;/g, "&");
    const first = await page("/memory?category=failure&tier=warm");
    const total = Number(/([\d,]+) units?, page 1 of (\d+)/.exec(first)![1]!.replace(/,/g, ""));
    const seen: number[] = idsOn(first);
    const pages = [first];
    for (let next = older(first); next;) {
      expect(next).toMatch(/before=\d+/);
      const html = await page(next);
      expect(html).toContain(`page ${pages.length + 1} of`);
      pages.push(html);
      seen.push(...idsOn(html));
      next = older(html);
    }
    expect(seen.length).toBe(total);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    expect(new Set(seen).size).toBe(seen.length);
    // Back from the third page: the second page again, the same units.
    const back = await page(newer(pages[2]!)!);
    expect(idsOn(back)).toEqual(idsOn(pages[1]!));
    expect(newer(pages[1]!)).toBe("/memory?category=failure&tier=warm");
  });
});
