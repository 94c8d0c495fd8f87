// The run of tool `get_summary` (its schemas are in get-summary.ts), loaded on its first call.
import { getSummary } from "../../transcript/compression/summaries.js";
import { renderStoredSummary } from "../../transcript/rendering/report.js";
import type { ToolRun } from "../tool.js";
import type { Input, Output } from "./get-summary.js";

export const run: ToolRun<typeof Input, typeof Output> = async (args, deps) => {
  const app = await deps.app();
  const s = getSummary(app.db, app.project.id, args.sessionId);
  return {
    text: renderStoredSummary(s, args.full),
    data: {
      sessionId: s.session_id,
      compression: s.compression,
      createdAt: s.created_at,
      tokensAfter: s.stats.tokens_after,
      probeScore: s.stats.probe_score,
    },
  };
};
