// What every command shares: the global flags turned into a config, the project's app, printing.
import { type Command, InvalidArgumentError } from "commander";
import type { z } from "zod";

import { type App, createApp } from "../app.js";
import type { Config, ConfigFlags } from "../config.js";
import { resolveConfig } from "../config.js";
import { AppError, clip } from "../errors.js";
import type { LogLevel } from "../log.js";
import { createLogger, type Logger } from "../log.js";
import { noProject, resolveProjectRoot } from "../project/root.js";
import { toWire } from "../text/case.js";
import { canonicalCategory, CATEGORY_ALIASES, CategoryName, type UnitCategory } from "../vocab.js";

/** What the commands know about the running CLI. */
export interface CliContext {
  version: string;
  /** The entry file (dist/cli.js): what registrations and hooks name, and what detached work runs. */
  entry: string;
  /** The package folder (holds mcp.json.example and, in a checkout, src/). */
  packageRoot: string;
}

export interface GlobalOpts {
  root?: string;
  db?: string;
  logLevel?: string;
  embedder?: string;
}

/** The settings for a command: its global flags, then `extra`, over the environment and defaults. */
export function configFrom(cmd: Command, extra: ConfigFlags = {}): Config {
  const g = cmd.optsWithGlobals<GlobalOpts>();
  return resolveConfig({ root: g.root, db: g.db, logLevel: g.logLevel, embedder: g.embedder, ...extra });
}

export function loggerFor(config: Config, quietInfo = false): Logger {
  const level = quietInfo && config.logLevel === "info" ? "warn" : config.logLevel;
  return createLogger(level as LogLevel);
}

/** Opens the project's app (the root resolved from the flags and the working folder). `needsProject`: a command
 * that indexes stops before any store is opened when no project was found. */
export function openApp(config: Config, opts: { needsProject?: boolean } = {}): App {
  const logger = loggerFor(config);
  const location = resolveProjectRoot({ explicit: config.root, cwd: process.cwd(), userDir: config.userDir });
  if (opts.needsProject && location.source === "user-store") throw noProject(location.root);
  const app = createApp(config, location, logger);
  const notice = app.takeEmbedderNotice();
  if (notice) logger.warn(notice);
  return app;
}

/** Opens the app for one command and always closes it. */
export async function withApp(
  config: Config,
  fn: (app: App) => Promise<void> | void,
  opts: { needsProject?: boolean } = {},
): Promise<void> {
  const app = openApp(config, opts);
  try {
    await fn(app);
  } finally {
    await app.close();
  }
}

/**
 * Prints `data` as JSON with --json, else `text`. JSON keys are snake_case, as on the MCP wire: the keys `names`
 * shapes (a zod schema of the camelCase parts of `data`, at any depth) are renamed here; other keys print as they are.
 */
export function print(json: boolean | undefined, data: unknown, text: string, names?: z.ZodType): void {
  if (!json) console.log(text);
  else console.log(JSON.stringify(names ? toWire(names, data) : data, null, 2));
}

/** Parses a whole number flag (commander hands the raw string); anything else is a usage error naming the flag. */
export function int(v: string): number {
  const t = v.trim();
  if (!/^[+-]?\d+$/.test(t)) throw new InvalidArgumentError("expected a whole number, such as 800.");
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError("the number is too large.");
  return n;
}

/** The memory categories a --category flag accepts, aliases included. */
export const CATEGORY_HELP = `${CategoryName.options.join(" | ")} (${Object.entries(CATEGORY_ALIASES)
  .map(([alias, c]) => `${alias} = ${c}`)
  .join(", ")})`;

/** A --category value: a unit category or one of its aliases, as the tools accept it. */
export function categoryFlag(value: string): UnitCategory {
  const r = CategoryName.safeParse(value);
  if (!r.success)
    throw new AppError("BAD_INPUT", `--category ${clip(value, 40)} is not a memory category: use ${CATEGORY_HELP}`);
  return canonicalCategory(r.data);
}

/** The evaluation code behind `memcards eval`, loaded only when an eval command runs. */
export const loadBench = () => import("../../bench/commands.js");

/** The domain's field names as the CLI spells them: a schema error names the flag or argument the user typed. */
const CLI_FIELDS: Record<string, string> = {
  transcriptPath: "<transcript>",
  budgetTokens: "--budget",
  keepRecent: "--keep",
  sessionId: "--session",
  editedFiles: "--edited",
  notHelpful: "--not-helpful",
  files: "--file",
  task: "<task>",
  query: "<query>",
  text: "<text>",
  focus: "--focus",
  category: "<category>",
  limit: "--limit",
  helped: "--helped",
  mode: "--mode",
  tier: "--tier",
};

/**
 * A usage message in the CLI's words: the field a schema problem names (at the start of each `field: problem`
 * part) becomes the flag or argument of the command line, and the tools' advice to pass `transcript_path` becomes
 * the command's argument.
 */
export function inCliWords(message: string): string {
  return message
    .replace(/\btranscript_path \(or messages\)/g, "a transcript file (memcards compress <transcript>)")
    .replace(/\bsession_id whose\b/g, "--session whose")
    .replace(/(^|; )([a-zA-Z_]+)(?=[.:])/g, (all, lead: string, field: string) =>
      CLI_FIELDS[field] ? `${lead}${CLI_FIELDS[field]}` : all,
    );
}
