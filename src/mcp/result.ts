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
  const text =
    markdown.length > MAX_RESULT_CHARS
      ? `${markdown.slice(0, MAX_RESULT_CHARS)}\n\n[result cut at ${MAX_RESULT_CHARS} characters of ${markdown.length}]`
      : markdown;
  const size = JSON.stringify(structured).length;
  const structuredContent =
    size > MAX_RESULT_CHARS
      ? { truncated: true, note: `structured result of ${size} characters left out` }
      : structured;
  // Whatever a result carries leaves redacted: the last gate before the client.
  return { content: [{ type: "text", text: redact(text) }], structuredContent: redactDeep(structuredContent) };
}

/** A failed tool call the model can see and correct (`isError: true`), with the error code first. */
export function fail(err: unknown, logger?: Logger): CallToolResult {
  const e = toAppError(err);
  if (e.code === "INTERNAL") logger?.error(e.message, { stack: e.stack });
  return { content: [{ type: "text", text: redact(`${e.code}: ${clip(e.message, MAX_ERROR_CHARS)}`) }], isError: true };
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
