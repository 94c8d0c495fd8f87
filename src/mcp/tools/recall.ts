// Tool `recall`: what this project's memory says the work at hand needs, under a budget.
import { z } from "zod";

import { RecallInput } from "../../memory/input.js";
import { defineTool } from "../tool.js";

export const Output = z.object({ tokens: z.number(), units: z.array(z.number()) });

export const recallTool = defineTool({
  name: "recall",
  title: "Recall for this session",
  description:
    "At the start of a session: under a budget, what this project's memory says the work at hand needs — the last session's next steps, user constraints, units about the changed files and branch, recent failures and fixes, latest metrics. Example: {\"budget_tokens\": 1000}.",
  input: RecallInput,
  output: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  load: async () => (await import("./recall.run.js")).run,
});
