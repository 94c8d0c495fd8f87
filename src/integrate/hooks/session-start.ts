// SessionStart: after a compaction, this session's summary; on startup, resume and clear, the project brief.
import { earlierSummaryExists } from "../../session/sessions.js";
import type { HookCall, HookResult } from "./input.js";
import { briefOf, cap } from "./output.js";

export async function sessionStart(call: HookCall): Promise<HookResult> {
  const { app, sessionId } = call;
  if (call.input.source === "compact" && sessionId) {
    const { getSummary } = await import("../../transcript/compression/summaries.js");
    try {
      const s = getSummary(app.db, app.project.id, sessionId);
      const out = cap(
        `# memcards: this session before compaction (compression #${s.compression})\n\n${briefOf(s.markdown)}`,
      );
      return { stdout: out, log: `injected the session summary, ${out.length} chars` };
    } catch {
      return { stdout: "", log: "no summary for this session" };
    }
  }
  // startup, resume, clear: the project brief (recall): the last session's next steps, constraints,
  // failures and metrics that the work at hand most likely needs.
  const { recall } = await import("../../memory/service.js");
  const brief = recall(app.scope, { budgetTokens: 2000 });
  if (brief.units.length === 0 && !earlierSummaryExists(app.scope, sessionId)) {
    return { stdout: "", log: "no memory yet" };
  }
  const out = cap(`# memcards: what this project's memory says the work needs\n\n${brief.markdown}`);
  return { stdout: out, log: `injected the project brief (${brief.units.length} units), ${out.length} chars` };
}
