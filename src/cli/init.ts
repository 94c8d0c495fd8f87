// `memcards init`: register memcards (and optionally its hooks) with an MCP client, after showing the change.
import { createInterface } from "node:readline/promises";

import type { Command } from "commander";

import { AppError } from "../errors.js";
import { ClientId, CLIENTS } from "../integrate/clients.js";
import { applyChange, planHooks, planRegistration } from "../integrate/init.js";
import { resolveProjectRoot } from "../project/root.js";
import { type CliContext, configFrom } from "./shared.js";

interface InitFlags {
  print?: boolean;
  yes?: boolean;
  remove?: boolean;
  hooks?: boolean;
  cardHooks?: boolean;
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export function registerInit(program: Command, ctx: CliContext): void {
  program
    .command("init [client]")
    .description("register memcards with an MCP client: claude-code (default), claude-desktop, cursor, vscode")
    .option("--print", "only show the change")
    .option("--yes", "write without asking")
    .option("--remove", "take memcards out again (other entries are kept)")
    .option("--hooks", "also add the Claude Code hooks to .claude/settings.json")
    .option("--card-hooks", "with --hooks: also inject cards before each prompt and each edit (off by default)")
    .action(async (client: string | undefined, opts: InitFlags, cmd: Command) => {
      const config = configFrom(cmd);
      const { root } = resolveProjectRoot({ explicit: config.root, cwd: process.cwd(), userDir: config.userDir });
      const id = ClientId.safeParse(client ?? "claude-code");
      if (!id.success)
        throw new AppError("BAD_INPUT", `unknown client ${client}; choose one of ${ClientId.options.join(", ")}`);
      const remove = opts.remove ?? false;
      const changes = [planRegistration(id.data, { root, cli: ctx.entry, remove })];
      if (opts.hooks) changes.push(planHooks({ root, cli: ctx.entry, remove, cards: opts.cardHooks ?? false }));
      for (const c of changes) {
        console.log(`${c.changed ? (c.before === undefined ? "create" : "update") : "unchanged"}: ${c.path}`);
        if (c.changed) console.log(c.after);
      }
      const pending = changes.filter((c) => c.changed);
      if (opts.print || pending.length === 0) return;
      if (!(opts.yes || (await confirm("Write these files? [y/N] ")))) {
        console.log("nothing written; run again with --yes to write");
        return;
      }
      for (const c of pending) applyChange(c);
      const title = CLIENTS[id.data].title;
      console.log(`written. ${remove ? "memcards is no longer registered" : `restart ${title} to pick memcards up`}.`);
    });
}
