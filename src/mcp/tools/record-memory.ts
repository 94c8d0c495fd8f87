// Tool `record_memory`: store one memory unit for this project.
import { z } from "zod";

import { RecordInput } from "../../memory/service.js";
import { recordMemory } from "../../session/memory.js";
import { sendQueued } from "../../team/deps.js";
import { defineTool } from "../tool.js";

const Output = z.object({
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
  async run(args, deps) {
    const app = await deps.app();
    const r = recordMemory(app.scope, args);
    // A project sharing memory with a team sends the unit now, or keeps it queued (the note says so).
    const note = await sendQueued(app.scope, app.config.team);
    return {
      text: `${r.outcome}${r.id !== undefined ? ` (#${r.id})` : ""}.${note ? ` ${note}.` : ""}`,
      data: { id: r.id ?? null, merged: r.merged, outcome: r.outcome },
    };
  },
});
