// `memcards trust`: use a store the repository commits (refused until then): show what it holds, then add it to the
// user's trusted stores.
import { existsSync } from "node:fs";
import { resolve } from "node:path";

import type { Command } from "commander";

import { AppError } from "../errors.js";
import { type CliContext, configFrom, loggerFor, print } from "./shared.js";

export function registerTrust(program: Command, ctx: CliContext): void {
  program
    .command("trust")
    .description("use this project's store although the repository commits it: show what it holds, then trust it")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { createApp } = await import("../app.js");
      const { resolveProjectRoot } = await import("../project/root.js");
      const { registerStore, trackedStoreFiles } = await import("../project/trust.js");
      const { getStatus } = await import("../status.js");
      const config = configFrom(cmd);
      const location = resolveProjectRoot({ explicit: config.root, cwd: process.cwd(), userDir: config.userDir });
      const dbPath = resolve(config.db ?? location.defaultDbPath);
      if (!existsSync(dbPath)) throw new AppError("NOT_FOUND", `no store at ${dbPath}; there is nothing to trust.`);
      const app = createApp(config, location, loggerFor(config, true), { untrusted: "allow" });
      try {
        // Only table names of plain letters: a committed store chooses its own schema, and its names reach the terminal.
        const counts = Object.fromEntries(
          Object.entries(getStatus(app, ctx.version).counts).filter(
            ([name]) => /^[a-z_0-9]{1,40}$/.test(name) && name !== "schema_migrations",
          ),
        );
        const tracked = trackedStoreFiles(dbPath) ?? [];
        const holds = Object.entries(counts).map(([name, n]) => `${name} ${n}`);
        // What it holds is shown before it is trusted.
        if (!opts.json) {
          console.log(`store: ${dbPath}${tracked.length ? " (committed to the repository)" : ""}`);
          console.log(`holds: ${holds.join(", ") || "nothing"}`);
        }
        registerStore(config.userDir, dbPath);
        const done = "trusted: memcards now reads it in hooks, the server and commands.";
        print(opts.json, { store: dbPath, committed: tracked.length > 0, counts, trusted: true }, done);
      } finally {
        await app.close();
      }
    });
}
