// Tool `get_summary`: the latest stored summary of a session.
import { z } from "zod";

import { MAX_ID_CHARS } from "../../limits.js";
import { defineTool } from "../tool.js";

export const Input = z
  .object({
    sessionId: z
      .string()
      .min(1)
      .max(MAX_ID_CHARS)
      .optional()
      .describe("the session (default: the most recently compressed one)"),
    full: z.boolean().default(false).describe("list every stored item, not just what fit the budget"),
  })
  .strict();

export const Output = z.object({
  sessionId: z.string(),
  compression: z.number(),
  createdAt: z.string(),
  tokensAfter: z.number(),
  probeScore: z.number(),
});

export const getSummaryTool = defineTool({
  name: "get_summary",
  title: "Latest session summary",
  description:
    'Return the latest anchored summary stored by compress_context for a session (default: the most recently compressed session of this project). full: true lists every stored item of every section. Example: {"full": true}.',
  input: Input,
  output: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  load: async () => (await import("./get-summary.run.js")).run,
});
