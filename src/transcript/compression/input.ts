// The arguments of compress_context, camelCase (the MCP edge publishes them in snake_case). A module of schemas
// only: listing the tools loads this, never the compression behind it.
import { z } from "zod";

import { MAX_INLINE_CHARS, MAX_PATH_CHARS } from "../../limits.js";
import { Message, TranscriptFormat } from "../schema.js";

export const CompressInput = z
  .object({
    transcriptPath: z
      .string()
      .min(1)
      .max(MAX_PATH_CHARS)
      .optional()
      .describe("a transcript file memcards parses itself (format detected)"),
    messages: z
      .array(Message)
      .max(500)
      .refine((ms) => ms.reduce((n, m) => n + m.content.length, 0) <= MAX_INLINE_CHARS, {
        error: `at most ${MAX_INLINE_CHARS} characters of content in all messages; pass transcript_path instead`,
      })
      .optional()
      .describe("a short array of {role, content} since the last call"),
    sessionId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("the session to merge into (default: the transcript's own id)"),
    keepRecent: z.number().int().min(0).max(50).default(5).describe("messages kept verbatim after the summary"),
    budgetTokens: z
      .number()
      .int()
      .min(200)
      .max(50_000)
      .optional()
      .describe("target summary size (default grows with the session; 500–12,000, ≥10:1)"),
    focus: z.string().max(500).optional().describe("what to keep first, like /compact <focus>"),
    format: TranscriptFormat.optional().describe("force a transcript format instead of detecting it"),
    route: z
      .enum(["auto", "deterministic"])
      .default("auto")
      .describe("auto: where the client offers sampling, its model rewrites intent/state/next steps (checked)"),
  })
  .strict();
export type CompressInput = z.input<typeof CompressInput>;
