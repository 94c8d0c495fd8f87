// All settings in one zod schema, resolved once: flags > environment > defaults.
import { homedir } from "node:os";
import { join } from "node:path";

import { z } from "zod";

import { AppError } from "./errors.js";

/** An HTTP session idle this long is closed. */
export const HTTP_IDLE_TIMEOUT_SEC = 1800;
/** Open HTTP sessions at most. */
export const HTTP_MAX_SESSIONS = 256;

export const Config = z.object({
  /** Project root given explicitly (--root / MEMCARDS_ROOT). */
  root: z.string().min(1).optional(),
  /** Database file given explicitly (--db / MEMCARDS_DB). */
  db: z.string().min(1).optional(),
  logLevel: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** `auto` (a cached model if present, else offline), `offline`, or a model id such as Xenova/all-MiniLM-L6-v2. */
  embedder: z.string().min(1).default("auto"),
  /** Where models pulled with `memcards models pull` live. */
  modelsDir: z.string().min(1),
  /** The per-user store used when no project root can be found. */
  userDir: z.string().min(1),
  /** The user's home (HOME), where clients keep their transcripts; when unset, the OS's idea of it. */
  home: z.string().min(1).optional(),
  /** Chromium for `memcards ui --screenshots` (MEMCARDS_CHROMIUM); when unset, looked up on PATH. */
  chromium: z.string().min(1).optional(),
  /** Team memory on PostgreSQL: where the store is and who writes to it. */
  team: z
    .object({
      /** postgres://… of the team store (--team-url, else MEMCARDS_TEAM_URL); never logged or stored. */
      url: z.string().min(1).optional(),
      /** The project's name in the team store (--team-project, else MEMCARDS_TEAM_PROJECT); else the link or remote. */
      project: z.string().min(1).optional(),
      /** Who units are sent as (MEMCARDS_TEAM_AUTHOR); else git's user.email, user.name, the OS user. */
      author: z.string().min(1).optional(),
      /** The machine units are sent from (MEMCARDS_TEAM_MACHINE); else the host name. */
      machine: z.string().min(1).optional(),
      /** The password of the member role `team init --role` or `team grant` creates (MEMCARDS_TEAM_ROLE_PASSWORD). */
      rolePassword: z.string().min(1).optional(),
    })
    .prefault({}),
  http: z
    .object({
      host: z.string().default("127.0.0.1"),
      port: z.coerce.number().int().min(0).max(65535).default(7331),
      token: z.string().min(1).optional(),
      /** Seconds without a request after which an HTTP session is closed (--idle-timeout). */
      idleTimeoutSec: z.coerce.number().positive().max(604_800).default(HTTP_IDLE_TIMEOUT_SEC),
      /** Open HTTP sessions at most (--max-sessions). */
      maxSessions: z.coerce.number().int().min(1).max(100_000).default(HTTP_MAX_SESSIONS),
    })
    .prefault({}),
});
export type Config = z.infer<typeof Config>;
/** The team settings alone, as the team functions take them. */
export type TeamSettings = Config["team"];

/** Settings a command line may carry; undefined means "not given". */
export interface ConfigFlags {
  root?: string | undefined;
  db?: string | undefined;
  logLevel?: string | undefined;
  embedder?: string | undefined;
  port?: string | number | undefined;
  host?: string | undefined;
  token?: string | undefined;
  idleTimeout?: string | number | undefined;
  maxSessions?: string | number | undefined;
  teamUrl?: string | undefined;
  teamProject?: string | undefined;
}

/** Resolves the configuration from flags, then environment variables, then defaults. */
export function resolveConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as shells and client configs often leave them.
  const e = (name: string) => (env[name] ? env[name] : undefined);
  // Names and URLs pasted with spaces around them mean the same; only blank means "not set".
  const trimmed = (v: string | undefined) => v?.trim() || undefined;
  const home = env.HOME || homedir();
  const userDir = env.MEMCARDS_HOME || join(home, ".memcards");
  const raw = {
    root: flags.root ?? e("MEMCARDS_ROOT"),
    db: flags.db ?? e("MEMCARDS_DB"),
    logLevel: flags.logLevel ?? e("MEMCARDS_LOG_LEVEL"),
    embedder: flags.embedder ?? e("MEMCARDS_EMBEDDER"),
    modelsDir: env.MEMCARDS_MODELS_DIR || join(userDir, "models"),
    userDir,
    home: e("HOME"),
    chromium: e("MEMCARDS_CHROMIUM"),
    team: {
      url: trimmed(flags.teamUrl) ?? trimmed(env.MEMCARDS_TEAM_URL),
      project: trimmed(flags.teamProject) ?? trimmed(env.MEMCARDS_TEAM_PROJECT),
      author: trimmed(env.MEMCARDS_TEAM_AUTHOR),
      machine: trimmed(env.MEMCARDS_TEAM_MACHINE),
      rolePassword: e("MEMCARDS_TEAM_ROLE_PASSWORD"),
    },
    http: {
      host: flags.host ?? e("MEMCARDS_HTTP_HOST"),
      port: flags.port ?? e("MEMCARDS_HTTP_PORT"),
      token: flags.token ?? e("MEMCARDS_HTTP_TOKEN"),
      idleTimeoutSec: flags.idleTimeout ?? e("MEMCARDS_HTTP_IDLE_TIMEOUT"),
      maxSessions: flags.maxSessions ?? e("MEMCARDS_HTTP_MAX_SESSIONS"),
    },
  };
  const parsed = Config.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "config";
    throw new AppError("BAD_INPUT", `invalid setting ${where}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}
