// The viewer's speed on a store of 10,000 units: the server starts in under a second and a page renders in
// under 200 ms (medians of repeated requests; the numbers are printed).
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
let startMs = 0;

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
  const t0 = performance.now();
  app = openTestApp(root, dbPath);
  ui = await startUi(app);
  startMs = performance.now() - t0;
  client = await login(ui);
}, 120_000);

afterAll(async () => {
  await ui?.close();
  await app?.close();
});

async function median(path: string, runs = 5): Promise<number> {
  await (await client.get(path)).text();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await client.get(path);
    await r.text();
    expect(r.status).toBe(200);
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

describe(`memcards ui on ${UNITS.toLocaleString("en-US")} units`, () => {
  it("starts in under a second", () => {
    console.log(`ui startup (open the store + listen): ${startMs.toFixed(0)} ms`);
    expect(startMs).toBeLessThan(1000);
  });

  it("renders a page in under 200 ms", async () => {
    const timings: Record<string, number> = {};
    for (const path of [
      "/memory",
      "/memory?category=failure&tier=warm&page=20",
      "/memory?q=helper42",
      "/sessions",
      "/cards",
      "/graph",
    ])
      timings[path] = Math.round(await median(path));
    console.log(`ui page render, median of 5 (ms): ${JSON.stringify(timings)}`);
    for (const [path, ms] of Object.entries(timings)) expect(ms, path).toBeLessThan(200);
  });
});
