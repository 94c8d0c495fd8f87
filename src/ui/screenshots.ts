// `memcards ui --screenshots DIR`: each page in light and dark, taken by a headless Chromium (playwright-core,
// a development dependency, loaded only here).
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { AppError } from "../errors.js";
import { PAGES } from "./pages/layout.js";

/** Where Chromium is: the configured one (MEMCARDS_CHROMIUM, see config.ts), else the first of chromium,
 * chromium-browser, google-chrome on PATH. */
export function findChromium(configured?: string): string | undefined {
  if (configured) return configured;
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      const p = execFileSync("sh", ["-c", `command -v ${name}`], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
      if (p) return p;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** Writes `<page>-<light|dark>.png` for every page into `dir`; returns the files written. */
export async function takeScreenshots(url: string, origin: string, dir: string, chromium?: string): Promise<string[]> {
  const executablePath = findChromium(chromium);
  if (!executablePath)
    throw new AppError(
      "NOT_FOUND",
      "no Chromium found: install it (Debian: apt-get install chromium) or set MEMCARDS_CHROMIUM",
    );
  let pw: typeof import("playwright-core");
  try {
    pw = await import("playwright-core");
  } catch (err) {
    throw new AppError("NOT_FOUND", "screenshots need playwright-core: npm install playwright-core", { cause: err });
  }
  mkdirSync(dir, { recursive: true });
  const browser = await pw.chromium.launch({ executablePath, args: ["--no-sandbox"] });
  const written: string[] = [];
  try {
    for (const scheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1100, height: 760 } });
      const page = await context.newPage();
      await page.goto(url);
      for (const p of PAGES) {
        await page.goto(`${origin}${p.path}`);
        const file = join(dir, `${p.path.slice(1)}-${scheme}.png`);
        await page.screenshot({ path: file, fullPage: true });
        written.push(file);
      }
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return written;
}
