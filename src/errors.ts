// One typed error for the whole app: a stable string code plus a message that names the bad value and the fix.
import { isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { z, ZodError } from "zod";

import { count } from "./text/plural.js";
import { packageRoot } from "./version.js";

/** Catalog of error codes. Add here, never inline a new string elsewhere. */
export const ErrorCodes = [
  "BAD_INPUT",
  "NOT_FOUND",
  "NOT_A_DIRECTORY",
  "NOT_INDEXED",
  "NO_PROJECT",
  "OUTSIDE_ROOTS",
  "SYSTEM_FOLDER",
  "UNSAFE_FILE",
  "STORE_UNTRUSTED",
  "DB_OPEN_FAILED",
  "DB_MISSING_FTS5",
  "DB_MISSING_VEC",
  "DB_MIGRATION_FAILED",
  "DB_NEWER_SCHEMA",
  "DB_CORRUPT",
  "EMBEDDER_UNAVAILABLE",
  "MODEL_PULL_FAILED",
  "UNKNOWN_FORMAT",
  "TEAM_NOT_CONFIGURED",
  "TEAM_UNREACHABLE",
  "TEAM_AUTH_FAILED",
  "TEAM_NOT_GRANTED",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ErrorCodes)[number];

/** The single error type thrown by domain code. */
export class AppError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AppError";
    this.code = code;
  }
}

/**
 * An AppError as it crosses a worker boundary: structured cloning keeps no class, so the code travels as data
 * and the receiving side rebuilds the error with `fromErrorReply`.
 */
export const ErrorReply = z.object({ code: z.enum(ErrorCodes), message: z.string() });
export type ErrorReply = z.infer<typeof ErrorReply>;

/** What a worker sends back for anything it caught. */
export function toErrorReply(err: unknown): ErrorReply {
  const e = toAppError(err);
  return { code: e.code, message: e.message };
}

/** The AppError a worker's reply stands for; a reply that is not one is itself an INTERNAL error. */
export function fromErrorReply(reply: unknown): AppError {
  const r = ErrorReply.safeParse(reply);
  if (r.success) return new AppError(r.data.code, r.data.message);
  return new AppError(
    "INTERNAL",
    `a worker replied with an unreadable error: ${clip(String(JSON.stringify(reply)), 200)}`,
  );
}

/** Schema problems named in one message; the rest are counted. */
const MAX_ISSUES = 10;

/** `text` cut to `max` characters, saying how much was left out: messages never echo unbounded input. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** Normalizes anything thrown into an AppError, keeping the original as cause. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  // Input that failed a schema is the caller's to fix: name each field and what is wrong with it.
  if (err instanceof ZodError) {
    const parts = err.issues
      .slice(0, MAX_ISSUES)
      .map((i) => clip(`${i.path.length ? i.path.join(".") : "input"}: ${i.message}`, 300));
    if (err.issues.length > MAX_ISSUES) parts.push(`and ${count(err.issues.length - MAX_ISSUES, "more problem")}`);
    return new AppError("BAD_INPUT", parts.join("; "), { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  const gone = missingOwnCode(err);
  if (gone) {
    return new AppError(
      "INTERNAL",
      `memcards' own code file ${gone} is gone: memcards was updated or rebuilt while this process was running, and its code is loaded as it is needed. Restart it (for an MCP client, restart or reconnect the memcards server).`,
      { cause: err },
    );
  }
  // SQLite found a damaged page after the store opened: the file, not the request, is at fault.
  if (isCorruptionError(err)) {
    return new AppError(
      "DB_CORRUPT",
      `the store is corrupt (${message}). Restore it from a backup, or run \`memcards doctor --fix\` to move it aside and start a fresh one.`,
      { cause: err },
    );
  }
  // A file outside memcards' own package that is missing or unreadable: the caller's to fix (a file they named, a
  // folder they chose). Inside the package (migrations, workers) it is an internal fault and stays INTERNAL.
  const sys = err as { code?: unknown; path?: unknown; syscall?: unknown } | null;
  const path = typeof sys?.path === "string" ? sys.path : undefined;
  if (path && !isInside(packageRoot(), resolve(path))) {
    if (sys?.code === "ENOENT" || sys?.code === "ENOTDIR") {
      return new AppError("NOT_FOUND", `${path} does not exist. Check the path.`, { cause: err });
    }
    if (sys?.code === "EACCES" || sys?.code === "EPERM" || sys?.code === "EISDIR") {
      const what = sys.syscall === "open" || sys.syscall === "read" ? "read" : "use";
      return new AppError("BAD_INPUT", `cannot ${what} ${path} (${String(sys.code)}). Check it and its permissions.`, {
        cause: err,
      });
    }
  }
  return new AppError("INTERNAL", message, { cause: err });
}

/**
 * The path of memcards' own module that an import could not find (its package's files replaced by an upgrade or a
 * rebuild under a running process, whose later imports name files of the old build), else undefined.
 */
function missingOwnCode(err: unknown): string | undefined {
  if ((err as { code?: unknown } | null)?.code !== "ERR_MODULE_NOT_FOUND") return undefined;
  const named = /Cannot find module '([^']+)'/.exec(err instanceof Error ? err.message : "")?.[1];
  if (!named) return undefined;
  const path = named.startsWith("file:") ? fileURLToPath(named) : named;
  return isAbsolute(path) && isInside(packageRoot(), resolve(path)) ? relative(packageRoot(), path) : undefined;
}

/** True for the SQLite result codes that mean the file is damaged or not a database at all. */
export function isCorruptionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

function isInside(dir: string, p: string): boolean {
  const r = relative(dir, p);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
}
