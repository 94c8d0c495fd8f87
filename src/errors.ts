// One typed error for the whole app: a stable string code plus a message that names the bad value and the fix.
import { ZodError } from "zod";

/** Catalog of error codes. Add here, never inline a new string elsewhere. */
export const ErrorCodes = [
  "BAD_INPUT",
  "NOT_FOUND",
  "NOT_A_DIRECTORY",
  "NOT_INDEXED",
  "OUTSIDE_ROOTS",
  "DB_OPEN_FAILED",
  "DB_MISSING_FTS5",
  "DB_MISSING_VEC",
  "DB_MIGRATION_FAILED",
  "DB_NEWER_SCHEMA",
  "EMBEDDER_MISMATCH",
  "EMBEDDER_UNAVAILABLE",
  "MODEL_PULL_FAILED",
  "UNKNOWN_FORMAT",
  "CANCELLED",
  "BUSY",
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
    if (err.issues.length > MAX_ISSUES) parts.push(`and ${err.issues.length - MAX_ISSUES} more problem(s)`);
    return new AppError("BAD_INPUT", parts.join("; "), { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new AppError("INTERNAL", message, { cause: err });
}
