// The viewer fits long content in Chromium: long paths stay inside the page (shortened, whole in the
// title), the Cards page names each task once per group, and screenshots hold the whole page.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { getMemoryCards } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { findChromium, takeScreenshots } from "../../src/ui/screenshots.js";
import { startUi, type UiHandle } from "../../src/ui/server.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";
import { copyPolyglot } from "../repo/fixture.js";

const executablePath = findChromium();
if (!executablePath)
  console.warn("SKIPPED test/ui/fit.test.ts: no Chromium on this machine (apt-get install chromium)");

const LONG_DIR = `${"a-rather-long-folder-name-for-a-workspace/".repeat(5)}tables`;

let app: App;
let ui: UiHandle;
let browser: Browser;

beforeAll(async () => {
  if (!executablePath) return;
  const root = copyPolyglot();
  // The largest file of the project sits deep under long folder names.
  mkdirSync(join(root, LONG_DIR), { recursive: true });
  writeFileSync(join(root, LONG_DIR, "generated_tables.py"), "TABLE = [\n" + "    'row',\n".repeat(4000) + "]\n");
  app = openTestApp(root);
  await buildGraph(app.scope, app);
  // Two tasks, so the Cards page has two groups.
  for (const task of ["fix the area computation in pyproj/shapes/geometry.py", "rename the shapes module"])
    await getMemoryCards({ ...app.scope, ranker: app.ranker }, { task, judge: false });
  ui = await startUi(app);
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  await app?.close();
});

async function open(path: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(ui.url);
  await page.goto(`${ui.origin}${path}`);
  return page;
}

describe.skipIf(!executablePath)("the viewer fits its content", () => {
  it("Graph: a long path is shortened inside the page, whole in its title", async () => {
    const page = await open("/graph");
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    const titles = await page.locator("a.path").evaluateAll((els) => els.map((e) => e.getAttribute("title") ?? ""));
    const long = titles.find((t) => t.startsWith(LONG_DIR));
    expect(long).toBeDefined();
    const shown = await page.locator(`a.path[title="${long}"]`).first().textContent();
    expect(shown!.length).toBeLessThanOrEqual(60);
    expect(long!.endsWith(shown!.replace(/^…/, ""))).toBe(true);
    await page.context().close();
  });

  it("Cards: each task heads its group once", async () => {
    const page = await open("/cards");
    const heads = await page.locator("tr.task th").allTextContents();
    expect(heads.length).toBeGreaterThanOrEqual(2);
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text.split("rename the shapes module").length - 1).toBe(1);
    await page.context().close();
  });

  it("screenshots hold the whole page, not the window", async () => {
    const dir = tmpDir();
    const files = await takeScreenshots(ui.url, ui.origin, dir);
    // PNG IHDR: the height as a big-endian 32-bit integer at byte 20. The Cards page is taller than the window.
    const height = (f: string) => readFileSync(f).readUInt32BE(20);
    expect(height(files.find((f) => f.endsWith("cards-light.png"))!)).toBeGreaterThan(760);
    expect(files).toContain(join(dir, "graph-dark.png"));
  });
});
