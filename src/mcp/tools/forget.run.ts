// The run of tool `forget` (its schemas are in forget.ts), loaded on its first call.
import type { ForgetInput } from "../../memory/input.js";
import { NOT_PURGED } from "../../memory/service.js";
import { forget } from "../../session/memory.js";
import { count } from "../../text/plural.js";
import type { ToolRun } from "../tool.js";
import type { Output } from "./forget.js";

export const run: ToolRun<typeof ForgetInput, typeof Output> = async (args, deps) => {
  const r = forget((await deps.app()).scope, args);
  return {
    text: `Forgot ${count(r.memories, "memory unit")}, ${count(r.rawTurns, "archived turn")}, ${count(r.summaries, "summaryy", "summaryies")}.${r.purged ? "" : ` ${NOT_PURGED}`}`,
    data: r,
  };
};
