// The run of tool `recall` (its schemas are in recall.ts), loaded on its first call.
import type { RecallInput } from "../../memory/input.js";
import { recall } from "../../memory/service.js";
import { teamRecallSection } from "../../team/deps.js";
import { countTokens } from "../../text/tokens.js";
import type { ToolRun } from "../tool.js";
import type { Output } from "./recall.js";

export const run: ToolRun<typeof RecallInput, typeof Output> = async (args, deps) => {
  const app = await deps.app();
  const r = recall(app.scope, args);
  // A project sharing memory with a team adds the team's rules and failures, with their authors, in the budget left.
  const team = await teamRecallSection(app.scope, app.config.team, (args.budgetTokens ?? 1500) - r.tokens);
  return {
    text: team ? `${r.markdown}\n\n${team}` : r.markdown,
    data: { tokens: team ? countTokens(`${r.markdown}\n\n${team}`) : r.tokens, units: r.units },
  };
};
