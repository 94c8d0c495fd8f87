// Tool `status`: where memcards stores this project, what it holds, which embedder is active.
import { z } from "zod";

import { EmbedderMode } from "../../vocab.js";
import { defineTool } from "../tool.js";

export const Input = z.object({}).strict();

export const Output = z.object({
  root: z.string(),
  db: z.string(),
  schemaVersion: z.number(),
  embedder: z.string(),
  embedderMode: EmbedderMode,
  /** Whether this client lets memcards ask its model (the judge route of get_memory_cards). */
  clientSampling: z.boolean(),
  distillation: z.object({ pending: z.number(), done: z.number(), failed: z.number(), added: z.number() }),
});

export const statusTool = defineTool({
  name: "status",
  title: "memcards status",
  description:
    "Show memcards' project root, database (path, size, rows per table, schema version) and active embedder. Call it when unsure whether memcards is set up here. No arguments.",
  input: Input,
  output: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  load: async () => (await import("./status.run.js")).run,
});
