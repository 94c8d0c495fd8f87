// Tool results: compact markdown for the model in `content`, a small object in `structuredContent`.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { toAppError } from "../errors.js";
import type { Logger } from "../log.js";
import { redact, redactDeep } from "../text/redact.js";

/** A successful tool result; whatever it carries leaves redacted (the last gate before the client). */
export function ok(markdown: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: redact(markdown) }], structuredContent: redactDeep(structured) };
}

/** A failed tool call the model can see and correct (`isError: true`), with the error code first. */
export function fail(err: unknown, logger?: Logger): CallToolResult {
  const e = toAppError(err);
  if (e.code === "INTERNAL") logger?.error(e.message, { stack: e.stack });
  return { content: [{ type: "text", text: redact(`${e.code}: ${e.message}`) }], isError: true };
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
