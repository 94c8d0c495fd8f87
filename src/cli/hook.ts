// `memcards hook <event>` (what Claude Code's hooks run) and `memcards log` (what the hooks did).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

import type { Command } from "commander";

import { type CliContext, configFrom, type GlobalOpts, int, withApp } from "./shared.js";
import { readStdin } from "./stdin.js";

export function registerHook(program: Command, ctx: CliContext): void {
  program
    .command("hook <event>")
    .description(
      "run a Claude Code hook (PreCompact, SessionStart, SessionEnd, PostToolUse, UserPromptSubmit, PreToolUse) with its JSON on stdin; always exits 0",
    )
    .action(async (event: string, _opts: unknown, cmd: Command) => {
      const { hookCommand } = await import("../integrate/hook-command.js");
      const g = cmd.optsWithGlobals<GlobalOpts>();
      const out = await hookCommand(event, await readStdin(3000), {
        flags: { root: g.root, db: g.db, embedder: g.embedder },
        env: process.env,
        cwd: process.cwd(),
        cli: ctx.entry,
      });
      if (out) process.stdout.write(`${out}\n`);
      process.exitCode = 0;
    });

  program
    .command("log")
    .description("what memcards' hooks did: summaries stored, context injected into which session, re-indexing")
    .option("--lines <n>", "last n lines", int, 40)
    .action(async (opts: { lines: number }, cmd: Command) => {
      const { checkStoreFiles, readChecked } = await import("../project/files.js");
      await withApp(configFrom(cmd), (app) => {
        const file = join(dirname(app.dbPath), "hooks.log");
        if (!existsSync(file)) {
          console.log(`no hook activity recorded yet (${file})`);
          return;
        }
        // The log as memcards wrote it: never a file a link points to.
        checkStoreFiles(file, dirname(file), false);
        const text = readChecked(file, {
          allow: () => undefined,
          maxBytes: 64 * 1024 * 1024,
          singleLink: true,
        }).data.toString("utf8");
        console.log(text.trimEnd().split("\n").slice(-opts.lines).join("\n"));
      });
    });
}
