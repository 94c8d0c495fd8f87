// `memcards status` and `memcards doctor`: what is stored, and whether everything needed works.
import type { Command } from "commander";

import { type CliContext, configFrom, print, withApp } from "./shared.js";

export function registerStatusDoctor(program: Command, ctx: CliContext): void {
  program
    .command("status")
    .description("show the project root, database, row counts and active embedder")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { getStatus, renderStatus } = await import("../status.js");
      await withApp(configFrom(cmd), (app) => {
        const status = getStatus(app, ctx.version);
        print(opts.json, status, renderStatus(status));
      });
    });

  program
    .command("doctor")
    .description("check Node, native modules, FTS5, sqlite-vec, the embedder, the store's health and write access")
    .option("--json", "print JSON")
    .option(
      "--fix",
      "move a corrupt store aside (renamed to <file>.corrupt-<time>, never deleted) so a fresh one starts",
    )
    .action(async (opts: { json?: boolean; fix?: boolean }, cmd: Command) => {
      const { renderChecks, runDoctor } = await import("../doctor.js");
      const checks = await runDoctor(configFrom(cmd), process.cwd(), { fix: opts.fix ?? false });
      print(opts.json, checks, renderChecks(checks));
      if (checks.some((c) => c.level === "fail")) process.exitCode = 1;
    });
}
