// `memcards ui`: the local viewer of the project's store; with --screenshots, writes each page's screenshots.
import { spawn } from "node:child_process";
import { resolve as resolvePath } from "node:path";

import type { Command } from "commander";

import { configFrom, int, withApp } from "./shared.js";

function openInBrowser(url: string): void {
  const cmd = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  const child = spawn(cmd, [url], { stdio: "ignore", detached: true });
  child.on("error", () => console.error(`memcards ui: could not run ${cmd}; open the URL yourself`));
  child.unref();
}

export function registerUi(program: Command): void {
  program
    .command("ui")
    .description("a local web page to see and steer the project's memory (loopback only, per-start token)")
    .option("--port <n>", "port to listen on (default: any free port)", int)
    .option("--host <addr>", "loopback address: 127.0.0.1 or ::1", "127.0.0.1")
    .option("--open", "open the page in the default browser")
    .option("--screenshots <dir>", "write light and dark screenshots of each page into DIR, then exit")
    .action(async (opts: { port?: number; host: string; open?: boolean; screenshots?: string }, cmd: Command) => {
      // The viewer (Hono, the pages) loads only here: hooks and other commands start without it.
      const { startUi } = await import("../ui/server.js");
      const config = configFrom(cmd);
      await withApp(config, async (app) => {
        const t0 = performance.now();
        const ui = await startUi(app, { host: opts.host, port: opts.port });
        try {
          if (opts.screenshots) {
            const { takeScreenshots } = await import("../ui/screenshots.js");
            const files = await takeScreenshots(ui.url, ui.origin, resolvePath(opts.screenshots), config.chromium);
            console.log(files.join("\n"));
            return;
          }
          console.log(`memcards ui for ${app.location.root} (started in ${Math.round(performance.now() - t0)} ms)`);
          console.log(ui.url);
          console.log("Ctrl-C to stop");
          if (opts.open) openInBrowser(ui.url);
          await new Promise<void>((done) => {
            process.once("SIGINT", done);
            process.once("SIGTERM", done);
          });
        } finally {
          await ui.close();
        }
      });
    });
}
