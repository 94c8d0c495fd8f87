// `memcards ui` as users run it: prints a URL with this start's token, serves the page, stops on SIGTERM.
import { spawn } from "node:child_process";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { cliPath } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

describe("memcards ui", () => {
  it("prints a tokened loopback URL, serves it, and exits cleanly on SIGTERM", async () => {
    const root = tmpDir("memcards-ui-cli-");
    const home = tmpDir();
    const child = spawn(
      process.execPath,
      [cliPath, "--root", root, "--db", join(tmpDir(), "ui.db"), "--embedder", "offline", "ui"],
      { cwd: root, env: { ...process.env, HOME: home, MEMCARDS_HOME: home }, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`no URL within 20 s: ${out}`)), 20_000);
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /http:\/\/127\.0\.0\.1:\d+\/memory\?token=[\w-]{20,}/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[0]);
          }
        });
      });
      const first = await fetch(url, { redirect: "manual" });
      expect(first.status).toBe(303);
      const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0]!;
      const page = await fetch(new URL("/memory", url), { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<h1>Memory</h1>");
      expect((await fetch(new URL("/memory", url))).status).toBe(401);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 40_000);
});
