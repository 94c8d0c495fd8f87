// Tool results: compact markdown for the model in `content`, a small object in `structuredContent`.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { clip, toAppError } from "../errors.js";
import { MAX_RESULT_CHARS } from "../limits.js";
import type { Logger } from "../log.js";
import { redact, redactDeep } from "../text/redact.js";

/** An error's message in a result: long enough to name the field and the fix, never an echo of bulk input. */
const MAX_ERROR_CHARS = 2000;

/**
 * A successful tool result, bounded: text past MAX_RESULT_CHARS is cut with a note, and a structured object
 * that large is replaced by a note (a client drops a message that size, and no context window holds it).
 */
export function ok(markdown: string, structured: Record<string, unknown>): CallToolResult {
  // Redacted first, then cut: a cut must never leave the head of a secret that redaction would have matched whole.
  const clean = redact(markdown);
  const text =
    clean.length > MAX_RESULT_CHARS
      ? `${clean.slice(0, MAX_RESULT_CHARS)}\n\n[result cut at ${MAX_RESULT_CHARS} characters of ${clean.length}]`
      : clean;
  const cleanStructured = redactDeep(structured);
  const size = JSON.stringify(cleanStructured).length;
  const structuredContent =
    size > MAX_RESULT_CHARS
      ? { truncated: true, note: `structured result of ${size} characters left out` }
      : cleanStructured;
  return { content: [{ type: "text", text }], structuredContent };
}

/** A failed tool call the model can see and correct (`isError: true`), with the error code first. */
export function fail(err: unknown, logger?: Logger): CallToolResult {
  const e = toAppError(err);
  if (e.code === "INTERNAL") logger?.error(e.message, { stack: e.stack });
  // Redacted before the cut (a secret across the cut must not leave its head), over a bounded window of the message.
  const message = redact(`${e.code}: ${e.message.slice(0, MAX_ERROR_CHARS * 2)}`);
  const more = e.message.length > MAX_ERROR_CHARS * 2 ? e.message.length - MAX_ERROR_CHARS * 2 : 0;
  const text = more || message.length > MAX_ERROR_CHARS ? `${clip(message, MAX_ERROR_CHARS)}` : message;
  return { content: [{ type: "text", text }], isError: true };
}

/** Runs a handler body, turning thrown errors into `isError` results. */
export async function guard(
  fn: () => Promise<CallToolResult> | CallToolResult,
  logger?: Logger,
): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    return fail(err, logger);
  }
}
