// The run of tool `forget` (its schemas are in forget.ts), loaded on its first call.
import type { ForgetInput } from "../../memory/input.js";
import { purgeNote } from "../../memory/service.js";
import { forget } from "../../session/memory.js";
import { sendQueued } from "../../team/deps.js";
import { count } from "../../text/plural.js";
import type { ToolRun } from "../tool.js";
import type { Output } from "./forget.js";

export const run: ToolRun<typeof ForgetInput, typeof Output> = async (args, deps) => {
  const app = await deps.app();
  const r = forget(app.scope, args);
  // Shared units are removed from the team store too: now, or when it is back (the note says so).
  const note = await sendQueued(app.scope, app.config.team);
  return {
    text: `Forgot ${count(r.memories, "memory unit")}, ${count(r.rawTurns, "archived turn")}, ${count(r.summaries, "summary", "summaries")}.${r.purged ? "" : ` ${purgeNote(r)}`}${note ? ` ${note}.` : ""}`,
    data: r,
  };
};
