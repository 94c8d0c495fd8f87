// The run of tool `record_memory` (its schemas are in record-memory.ts), loaded on its first call.
import type { RecordInput } from "../../memory/input.js";
import { recordMemory } from "../../session/memory.js";
import { sendQueued } from "../../team/deps.js";
import type { ToolRun } from "../tool.js";
import type { Output } from "./record-memory.js";

export const run: ToolRun<typeof RecordInput, typeof Output> = async (args, deps) => {
  const app = await deps.app();
  const r = recordMemory(app.scope, args);
  // A project sharing memory with a team sends the unit now, or keeps it queued (the note says so).
  const note = await sendQueued(app.scope, app.config.team);
  return {
    text: `${r.outcome}${r.id !== undefined ? ` (#${r.id})` : ""}.${note ? ` ${note}.` : ""}`,
    data: { id: r.id ?? null, merged: r.merged, outcome: r.outcome },
  };
};
