// The run of tool `record_outcome` (its schemas are in record-outcome.ts), loaded on its first call.
import type { OutcomeInput } from "../../cards/input.js";
import { recordOutcome, someIds } from "../../cards/service.js";
import { count } from "../../text/plural.js";
import type { ToolRun } from "../tool.js";
import type { Output } from "./record-outcome.js";

export const run: ToolRun<typeof OutcomeInput, typeof Output> = async (args, deps) => {
  const app = await deps.app();
  const r = recordOutcome(app.scope, args);
  const unknown = r.unknownCount
    ? ` ${count(r.unknownCount, "unknown card id")}: ${someIds(r.unknown, r.unknownCount)}.`
    : "";
  return {
    text: `Recorded ${count(r.recorded, "outcome")}.${unknown}`,
    data: r,
  };
};
