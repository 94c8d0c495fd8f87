// PreCompact: stores the anchored summary before the client's own compaction; stdout is not shown to the model.
import { confinedReader } from "../../transcript/formats/source.js";
import type { HookCall, HookResult } from "./input.js";

export async function preCompact(call: HookCall): Promise<HookResult> {
  if (call.refused) throw call.refused;
  if (!call.transcript) return { stdout: "", log: "no transcript_path" };
  // Each event loads only the modules it uses: a hook runs in a new process on every prompt and edit.
  const { compressContext } = await import("../../session/compress.js");
  const r = compressContext(
    { ...call.app.scope, read: confinedReader(call.scope) },
    { transcriptPath: call.transcript, ...(call.sessionId ? { sessionId: call.sessionId } : {}) },
  );
  return {
    stdout: "",
    log: `compressed ${r.stats.turns_summarized} turns, ${r.stats.tokens_before} → ${r.stats.tokens_after} tokens, probes ${r.stats.probe_score_before}`,
  };
}
