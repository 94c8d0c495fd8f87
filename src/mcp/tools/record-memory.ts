// Tool `record_memory`: store one memory unit for this project.
import { z } from "zod";

import { RecordInput } from "../../memory/input.js";
import { defineTool } from "../tool.js";

export const Output = z.object({
  /** The unit stored, or the one merged into; null when nothing was stored. */
  id: z.number().nullable(),
  merged: z.boolean(),
  outcome: z.string(),
});

export const recordMemoryTool = defineTool({
  name: "record_memory",
  title: "Remember a fact",
  description:
    'Store one memory unit for this project: a commitment or rule, a decision, a learning, a failure and its fix, a preference, or a metric (`name: value unit`). Merges duplicates, supersedes old metrics, flags contradictions; secrets redacted. Example: {"category": "commitment", "text": "Never edit generated files under gen/"}.',
  input: RecordInput,
  output: Output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  load: async () => (await import("./record-memory.run.js")).run,
});
