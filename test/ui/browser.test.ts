// The viewer in headless Chromium (playwright-core) over a real store: every page renders in light and dark,
// search and the keyboard work, and edit, pin, forget and approve change the store through the page's own forms.
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { resolveConfig } from "../../src/config.js";
import { isReviewMode } from "../../src/memory/review.js";
import { compressContext } from "../../src/session/compress.js";
import { getMemory } from "../../src/storage/memories.js";
import { findChromium } from "../../src/ui/screenshots.js";
import { startUi, type UiHandle } from "../../src/ui/server.js";
import { engineReady } from "../helpers/engines.js";
import { writeSession } from "../helpers/session.js";
import { leaked } from "../security/canaries.js";
import { buildUiStore, CANARY, type UiStore } from "./store.js";

const executablePath = findChromium(resolveConfig().chromium);
const ready = engineReady(
  "memcards ui in Chromium (test/ui/browser.test.ts)",
  "Chromium",
  executablePath
    ? undefined
    : "no Chromium on this machine (apt-get install chromium, or set MEMCARDS_CHROMIUM); the HTTP-level tests in test/ui/http.test.ts still ran",
);

let store: UiStore;
let ui: UiHandle;
let browser: Browser;

beforeAll(async () => {
  if (!ready) return;
  store = await buildUiStore();
  ui = await startUi(store.app);
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  await store?.app.close();
});

async function open(scheme: "light" | "dark" = "light"): Promise<Page> {
  const context = await browser.newContext({ colorScheme: scheme });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(ui.url);
  return page;
}

const unit = (page: Page, id: number) => page.locator(`article[data-unit="${id}"]`);

describe.skipIf(!ready)("memcards ui in Chromium", () => {
  it("renders every page with data, in light and in dark", async () => {
    const backgrounds: string[] = [];
    for (const scheme of ["light", "dark"] as const) {
      const page = await open(scheme);
      expect(page.url()).not.toContain("token=");
      await expect(page.locator("h1").textContent()).resolves.toBe("Memory");
      expect(await page.locator("article.unit").count()).toBeGreaterThan(5);
      for (const [name, text] of [
        ["Sessions", "claude-code.jsonl"],
        ["Injections", "injected the project brief"],
        ["Cards", "cards served"],
        ["Graph", "pyproj/shapes/geometry.py"],
      ] as const) {
        await page.getByRole("link", { name, exact: true }).click();
        await expect(page.locator("h1").textContent()).resolves.toBe(name);
        expect(await page.locator("main").textContent()).toContain(text);
      }
      expect(await page.locator("svg.chart").count()).toBe(2);
      // Expressions as strings: they run in the page, and this project's TypeScript has no DOM types.
      backgrounds.push(await page.evaluate<string>("getComputedStyle(document.body).backgroundColor"));
      await page.context().close();
    }
    expect(backgrounds[0]).not.toBe(backgrounds[1]);
  });

  it("searches from the keyboard and moves between pages with g-keys", async () => {
    const page = await open();
    await page.keyboard.press("/");
    expect(await page.evaluate<string>('document.activeElement?.getAttribute("type")')).toBe("search");
    await page.keyboard.type(CANARY);
    await page.keyboard.press("Enter");
    await page.waitForURL(/q=zanzibarquokka/);
    expect(await page.locator("article.unit").count()).toBe(1);
    await expect(unit(page, store.canaryId).textContent()).resolves.toContain(CANARY);
    await page.locator("body").focus();
    await page.keyboard.press("g");
    await page.keyboard.press("s");
    await page.waitForURL(/\/sessions/);
    await page.context().close();
  });

  it("edits and pins a unit through its forms", async () => {
    const page = await open();
    const id = store.canaryId;
    await page.goto(`${ui.origin}/memory?q=${CANARY}`);
    await unit(page, id).getByRole("button", { name: "Edit" }).click();
    await unit(page, id).locator("textarea").fill(`Never deploy geometry.py without the ${CANARY} review, twice`);
    await unit(page, id).getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/msg=/);
    expect(getMemory(store.app.db, id)?.text).toContain("review, twice");
    await expect(page.locator(".flash").first().textContent()).resolves.toContain(`unit #${id} saved`);
    await unit(page, id).getByRole("button", { name: "Pin" }).click();
    await page.waitForURL(/pinned/);
    expect(getMemory(store.app.db, id)?.record.pinned).toBe(true);
    await expect(unit(page, id).textContent()).resolves.toContain("pinned");
    await page.context().close();
  });

  it("refuses a form whose CSRF token was removed", async () => {
    const page = await open();
    await page.goto(`${ui.origin}/memory?q=${CANARY}`);
    await unit(page, store.canaryId)
      .locator('form[action$="/unpin"] input[name=csrf]')
      .evaluate((el) => el.remove());
    await unit(page, store.canaryId).getByRole("button", { name: "Unpin" }).click();
    await expect(page.locator("body").textContent()).resolves.toContain("missing its CSRF token");
    expect(getMemory(store.app.db, store.canaryId)?.record.pinned).toBe(true);
    await page.context().close();
  });

  it("turns review mode on and approves a waiting unit", async () => {
    const page = await open();
    await page.getByRole("button", { name: "Turn review on" }).click();
    await page.waitForURL(/msg=/);
    expect(isReviewMode(store.app.db, store.app.project.id)).toBe(true);
    compressContext(store.app.scope, { transcriptPath: writeSession(store.root, "review.jsonl", 2), keepRecent: 2 });
    await page.goto(`${ui.origin}/memory`);
    await page.getByRole("link", { name: /waiting for review/ }).click();
    const first = page.locator("article.unit").first();
    const id = Number(await first.getAttribute("data-unit"));
    expect(getMemory(store.app.db, id)?.status).toBe("pending");
    await first.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL(/approved/);
    expect(getMemory(store.app.db, id)?.status).toBe("active");
    await page.context().close();
  });

  it("forgets a unit after confirmation: its text is gone from the database and the WAL", async () => {
    const page = await open();
    page.on("dialog", (d) => void d.accept());
    await page.goto(`${ui.origin}/memory?q=${CANARY}`);
    expect(leaked(store.app.dbPath, [CANARY])).toEqual([CANARY]);
    await unit(page, store.canaryId).getByRole("button", { name: "Forget" }).click();
    await page.waitForURL(/forgotten/);
    expect(getMemory(store.app.db, store.canaryId)).toBeUndefined();
    expect(leaked(store.app.dbPath, [CANARY])).toEqual([]);
    expect(await page.locator("article.unit").count()).toBe(0);
    await expect(page.getByRole("status").last().textContent()).resolves.toContain("0 units matching");
    await page.context().close();
  });
});
