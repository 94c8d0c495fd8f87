// Tool `forget`: delete memory for real, from every table and index.
import { z } from "zod";

import { ForgetInput } from "../../memory/input.js";
import { defineTool } from "../tool.js";

export const Output = z.object({
  memories: z.number(),
  rawTurns: z.number(),
  summaries: z.number(),
  /** False while the old text may still be in the store file: another connection's open read, or `purgeProblem`. */
  purged: z.boolean(),
  /** Why the store's file could not be rewritten (a full disk, a read-only file); absent when it was, or will be. */
  purgeProblem: z.string().optional(),
});

export const forgetTool = defineTool({
  name: "forget",
  title: "Forget",
  description:
    'Delete memory for real — one unit (id), a session\'s units, raw turns and summaries (session_id), units citing a file (file), or everything of this project (all: true) — from every table, index and served card, freed pages overwritten. Example: {"session_id": "3f2a"}.',
  input: ForgetInput,
  output: Output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  load: async () => (await import("./forget.run.js")).run,
});
