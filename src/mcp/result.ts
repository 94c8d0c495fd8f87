// Tool results: compact markdown for the model in `content`, a small object in `structuredContent`.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { AppError, clip, toAppError } from "../errors.js";
import { MAX_RESULT_CHARS } from "../limits.js";
import type { Logger } from "../log.js";
import { redact, redactDeep } from "../text/redact.js";

/** An error's message in a result: long enough to name the field and the fix, never an echo of bulk input. */
const MAX_ERROR_CHARS = 2000;

/**
 * A successful tool result, bounded: text past MAX_RESULT_CHARS is cut with a note, and a structured object
 * that large is cut to fit (see `fit`): a client drops a message that size, and no context window holds it.
 * `optional` names the fields the tool's output schema lets go (default: all of them).
 */
export function ok(
  markdown: string,
  structured: Record<string, unknown>,
  optional: readonly string[] = Object.keys(structured),
): CallToolResult {
  // Whatever a result carries leaves redacted (the last gate before the client), and redacted before it is
  // cut: a cut must never leave the head of a secret that redaction would have matched whole.
  const clean = redact(markdown);
  const text =
    clean.length > MAX_RESULT_CHARS
      ? `${clean.slice(0, MAX_RESULT_CHARS)}\n\n[result cut at ${MAX_RESULT_CHARS} characters of ${clean.length}]`
      : clean;
  return { content: [{ type: "text", text }], structuredContent: fit(redactDeep(structured), optional) };
}

/** Room kept for the `truncated` note itself. */
const NOTE_ROOM = 1000;

/**
 * A structured object within MAX_RESULT_CHARS. Past it, optional fields go, largest first, until it fits, and
 * `truncated` says which went. A cut result so still matches its tool's output schema: every schema declares
 * `truncated` (tool.ts), required fields stay required, and they are small by design (ids, counts, short
 * lists), so only bulk such as the verbose audit of get_memory_cards ever goes. Should the required fields
 * alone be too large, the call fails rather than answer outside its schema.
 */
function fit(structured: Record<string, unknown>, optional: readonly string[]): Record<string, unknown> {
  const size = JSON.stringify(structured).length;
  if (size <= MAX_RESULT_CHARS) return structured;
  const kept = { ...structured };
  const bySize = optional
    .filter((k) => kept[k] !== undefined)
    .map((k) => [k, JSON.stringify(kept[k]).length] as const)
    .sort((a, b) => b[1] - a[1]);
  const left: string[] = [];
  for (const [k] of bySize) {
    if (JSON.stringify(kept).length <= MAX_RESULT_CHARS - NOTE_ROOM) break;
    delete kept[k];
    left.push(k);
  }
  if (JSON.stringify(kept).length > MAX_RESULT_CHARS - NOTE_ROOM)
    throw new AppError("INTERNAL", `structured result of ${size} characters is over the result cap`);
  kept.truncated = clip(`structured result of ${size} characters: left out ${left.join(", ")}`, NOTE_ROOM - 100);
  return kept;
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
