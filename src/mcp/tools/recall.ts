// Tool `recall`: what this project's memory says the work at hand needs, under a budget.
import { z } from "zod";

import { recall, RecallInput } from "../../memory/service.js";
import { teamRecallSection } from "../../team/deps.js";
import { countTokens } from "../../text/tokens.js";
import { defineTool } from "../tool.js";

const Output = z.object({ tokens: z.number(), units: z.array(z.number()) });

export const recallTool = defineTool({
  name: "recall",
  title: "Recall for this session",
  description:
    "At the start of a session: under a budget, what this project's memory says the work at hand needs — the last session's next steps, user constraints, units about the changed files and branch, recent failures and fixes, latest metrics. Example: {\"budget_tokens\": 1000}.",
  input: RecallInput,
  output: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, deps) {
    const app = await deps.app();
    const r = recall(app.scope, args);
    // A project sharing memory with a team adds the team's rules and failures, with their authors, in the budget left.
    const team = await teamRecallSection(app.scope, app.config.team, (args.budgetTokens ?? 1500) - r.tokens);
    return {
      text: team ? `${r.markdown}\n\n${team}` : r.markdown,
      data: { tokens: team ? countTokens(`${r.markdown}\n\n${team}`) : r.tokens, units: r.units },
    };
  },
});
