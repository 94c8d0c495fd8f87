// `memcards init`: register memcards (and optionally its hooks) with an MCP client, after showing the change.
import { createInterface } from "node:readline/promises";

import type { Command } from "commander";

import { AppError } from "../errors.js";
import { ClientId, CLIENTS, detectClients } from "../integrate/clients.js";
import {
  applyChange,
  approvalListed,
  CLAUDE_CODE_APPROVAL,
  planApproval,
  planHooks,
  planRegistration,
} from "../integrate/init.js";
import { resolveProjectRoot } from "../project/root.js";
import { type CliContext, configFrom, withApp } from "./shared.js";

interface InitFlags {
  print?: boolean;
  yes?: boolean;
  remove?: boolean;
  hooks?: boolean;
  cardHooks?: boolean;
  approve?: boolean;
  all?: boolean;
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
    .description(
      "register memcards with an MCP client: the one named (claude-code, claude-desktop, cursor, vscode), every one found here with --all, else Claude Code",
    )
    .option("--all", "every client found on this machine or in this project")
    .option("--print", "only show the change")
    .option("--yes", "write without asking")
    .option("--remove", "take memcards out again (other entries are kept)")
    .option("--hooks", "also add the Claude Code hooks to .claude/settings.json")
    .option("--card-hooks", "with --hooks: also inject cards before each prompt and each edit (off by default)")
    .option(
      "--approve",
      "also approve the project server in Claude Code for this machine (.claude/settings.local.json)",
    )
    .action(async (client: string | undefined, opts: InitFlags, cmd: Command) => {
      const config = configFrom(cmd);
      const { root } = resolveProjectRoot({ explicit: config.root, cwd: process.cwd(), userDir: config.userDir });
      const targets = await chooseClients(client, opts, root);
      const remove = opts.remove ?? false;
      const changes = targets.map((id) => planRegistration(id, { root, cli: ctx.entry, remove }));
      if (opts.hooks && targets.includes("claude-code"))
        changes.push(planHooks({ root, cli: ctx.entry, remove, cards: opts.cardHooks ?? false }));
      const claudeCode = targets.includes("claude-code");
      if ((opts.approve || remove) && claudeCode && (opts.approve || approvalListed(root)))
        changes.push(planApproval({ root, remove }));
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
      // Hooks act only in a project that has a store: set this one up now.
      if (opts.hooks && !remove) await withApp(config, () => undefined);
      const titles = targets.map((id) => CLIENTS[id].title).join(", ");
      console.log(`written. ${remove ? "memcards is no longer registered" : `restart ${titles} to pick memcards up`}.`);
      if (claudeCode && !remove && !opts.approve) console.log(CLAUDE_CODE_APPROVAL);
    });
}

/**
 * The clients to register with: the one named; with --all every one found; else Claude Code, offering the
 * other clients found (asked one by one on a terminal, named on stdout otherwise).
 */
async function chooseClients(client: string | undefined, opts: InitFlags, root: string): Promise<ClientId[]> {
  if (client !== undefined) {
    if (opts.all) throw new AppError("BAD_INPUT", `name one client or pass --all, not both (got ${client} and --all)`);
    const id = ClientId.safeParse(client);
    if (!id.success)
      throw new AppError("BAD_INPUT", `unknown client ${client}; choose one of ${ClientId.options.join(", ")}`);
    return [id.data];
  }
  const found = detectClients({ root }).filter((d) => d.present);
  console.log(
    found.length > 0
      ? `found: ${found.map((d) => `${d.title} (${d.evidence})`).join("; ")}`
      : `found none of ${ClientId.options.join(", ")} here`,
  );
  if (opts.all) {
    if (found.length === 0)
      throw new AppError(
        "NOT_FOUND",
        `no MCP client found here; name one: memcards init ${ClientId.options.join("|")}`,
      );
    return found.map((d) => d.id);
  }
  const targets: ClientId[] = ["claude-code"];
  const others = found.filter((d) => d.id !== "claude-code");
  for (const d of others) {
    if (!opts.print && !opts.yes && process.stdin.isTTY) {
      if (await confirm(`Also register memcards with ${d.title}? [y/N] `)) targets.push(d.id);
    } else console.log(`also found ${d.title}: memcards init ${d.id} (or memcards init --all)`);
  }
  return targets;
}
