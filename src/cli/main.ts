// memcards CLI: global options, the command groups in help order, and one error handler.
import { Command, Option } from "commander";

import { DEFAULT_MODEL } from "../embeddings/transformers.js";
import { toAppError } from "../errors.js";
import { redact } from "../text/redact.js";
import { packageRoot, packageVersion } from "../version.js";
import { registerCards, registerOutcome } from "./cards.js";
import { registerCompress, registerSummary } from "./compress.js";
import { registerEval } from "./eval.js";
import { registerHook } from "./hook.js";
import { registerGraph, registerIndex } from "./index-graph.js";
import { registerInit } from "./init.js";
import { registerMemory } from "./memory.js";
import { registerMemoryAdmin } from "./memory-admin.js";
import { registerModels } from "./models.js";
import { registerRecallForget } from "./recall-forget.js";
import { registerServe } from "./serve.js";
import { type CliContext, inCliWords } from "./shared.js";
import { registerStatusDoctor } from "./status-doctor.js";
import { registerTeam } from "./team.js";
import { registerTrust } from "./trust.js";
import { registerUi } from "./ui.js";

/** The whole command tree; `entry` is the file users run (dist/cli.js). */
export function createProgram(entry: string): Command {
  const ctx: CliContext = { version: packageVersion(), entry, packageRoot: packageRoot() };
  const program = new Command()
    .name("memcards")
    .description("Local context layer for coding agents, served over MCP.")
    .version(ctx.version)
    .option("--root <dir>", "project root (default: the client's MCP roots, else the git top level, else ~/.memcards)")
    .option("--db <file>", "database file (default: <root>/.memcards/memcards.db)")
    .option("--embedder <id>", "auto | offline | a model id such as " + DEFAULT_MODEL)
    .addOption(
      new Option("--log-level <level>", "stderr log level").choices(["debug", "info", "warn", "error", "silent"]),
    )
    .showHelpAfterError("(add --help for usage)")
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
      // Usage errors read like every other error: `memcards: BAD_INPUT: option '--budget <tokens>' argument …`.
      outputError: (s, write) => write(`memcards: BAD_INPUT: ${s.replace(/^error: /, "")}`),
    });
  registerServe(program, ctx);
  registerStatusDoctor(program, ctx);
  registerIndex(program);
  registerCompress(program);
  registerCards(program);
  registerOutcome(program);
  registerInit(program, ctx);
  registerHook(program, ctx);
  registerMemory(program);
  registerRecallForget(program);
  registerMemoryAdmin(program);
  registerSummary(program);
  registerGraph(program);
  registerUi(program);
  registerEval(program, ctx);
  registerModels(program);
  registerTeam(program);
  registerTrust(program, ctx);
  return program;
}

/** Runs the CLI on this process's argv: a failure prints `memcards: CODE: message` and exits 1. */
export async function run(entry: string, argv: readonly string[] = process.argv): Promise<void> {
  const program = createProgram(entry);
  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    const e = toAppError(err);
    // Redacted like every other channel: a path or value the input carried may hold a secret.
    const message = redact(e.code === "BAD_INPUT" ? inCliWords(e.message) : e.message);
    process.stderr.write(`memcards: ${e.code}: ${message}\n`);
    // A stack trace only on request (--log-level debug or MEMCARDS_LOG_LEVEL=debug), the original error's.
    const level = program.opts<{ logLevel?: string }>().logLevel ?? process.env.MEMCARDS_LOG_LEVEL;
    const stack = (e.cause instanceof Error ? e.cause.stack : undefined) ?? e.stack;
    if (level === "debug" && stack) process.stderr.write(`${stack}\n`);
    process.exit(1);
  }
}
