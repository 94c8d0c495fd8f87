// What every resource read shares: one error mapping, and template variables taken apart safely.
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

import { AppError, clip, type ErrorCode as AppErrorCode, toAppError } from "../../errors.js";
import { MAX_ID_CHARS } from "../../limits.js";
import type { Logger } from "../../log.js";
import { redact } from "../../text/redact.js";

/** Failures that are the reader's to fix: an unknown or malformed id. */
const CALLER_FAULTS: ReadonlySet<AppErrorCode> = new Set(["NOT_FOUND", "BAD_INPUT", "NOT_INDEXED"]);

/**
 * Runs a read, turning what it throws into a JSON-RPC error: an unknown id is Invalid Params (-32602, what
 * the MCP spec settled on for a missing resource and what the SDK answers for an unknown URI) with a message
 * naming it; anything else is Internal Error. Both carry the error code first, as tool errors do.
 */
export async function guardRead<T>(fn: () => Promise<T> | T, logger?: Logger): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof McpError) throw err;
    const e = toAppError(err);
    if (e.code === "INTERNAL") logger?.error(e.message, { stack: e.stack });
    const code = CALLER_FAULTS.has(e.code) ? ErrorCode.InvalidParams : ErrorCode.InternalError;
    throw new McpError(code, redact(`${e.code}: ${clip(e.message, 2000)}`), { code: e.code });
  }
}

/** An id from a resource template's URI, percent-decoded and bounded. */
export function templateId(value: string | string[] | undefined, what: string): string {
  const raw = Array.isArray(value) ? value.join("/") : (value ?? "");
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    throw new AppError("BAD_INPUT", `the ${what} id ${clip(raw, 100)} is not valid percent-encoding`);
  }
  if (!id) throw new AppError("BAD_INPUT", `the URI names no ${what} id`);
  if (id.length > MAX_ID_CHARS)
    throw new AppError("BAD_INPUT", `a ${what} id has at most ${MAX_ID_CHARS} characters, not ${id.length}`);
  return id;
}

/** Completion values, and list entries, of a project that has nothing stored yet: none, not an error. */
export function noneIfMissing<T>(fn: () => T, none: T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND") return none;
    throw err;
  }
}
