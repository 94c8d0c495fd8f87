// SessionEnd: distils the transcript into memory units in a detached process.
import { checkReadable } from "../../project/confine.js";
import type { HookCall, HookResult } from "./input.js";

export async function sessionEnd(call: HookCall): Promise<HookResult> {
  if (call.refused) throw call.refused;
  if (!call.transcript) return { stdout: "", log: "no transcript_path" };
  checkReadable(call.transcript, call.scope);
  call.spawn([
    "distill",
    call.transcript,
    "--root",
    call.app.location.root,
    "--log-level",
    "silent",
    "--confine",
    ...(call.sessionId ? ["--session", call.sessionId] : []),
  ]);
  return { stdout: "", log: "queued distillation of the transcript" };
}
