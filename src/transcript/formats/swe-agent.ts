// SWE-agent trajectories (.traj): `history` is the chat; `trajectory` the action/observation steps; `info.submission` the patch.
import type { ToolCall } from "../../conversation/schema.js";
import { AppError } from "../../errors.js";
import type { Transcript } from "../schema.js";
import { jsonProblem } from "./json-error.js";
import { asRecord, blockText, parseArgs, str, TurnSink } from "./turns.js";

function actionCall(action: string): ToolCall {
  const name = action.trim().split(/\s+/, 1)[0] || "action";
  return { name, input: { command: action } };
}

export function parseSweAgent(text: string): Transcript {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The engine's message quotes the text; name the place instead.
    throw new AppError("UNKNOWN_FORMAT", `SWE-agent trajectory: ${jsonProblem(text)}`);
  }
  const root = asRecord(value);
  const sink = new TurnSink("swe-agent-traj");
  const history = Array.isArray(root.history) ? root.history : [];
  const steps = Array.isArray(root.trajectory) ? root.trajectory : [];
  let seenTask = false;
  if (history.length > 0) {
    for (const h of history) {
      const m = asRecord(h);
      const role = str(m.role);
      if (m.is_demo === true) {
        sink.ignore("demonstration");
        continue;
      }
      const content = blockText(m.content);
      if (role === "system") {
        sink.turn({ role: "system", kind: "meta", text: content });
      } else if (role === "assistant") {
        const calls: ToolCall[] = [];
        if (Array.isArray(m.tool_calls)) {
          for (const c of m.tool_calls) {
            const fn = asRecord(asRecord(c).function);
            const id = str(asRecord(c).id);
            const input = parseArgs(fn.arguments);
            if (typeof m.action === "string") input.command ??= m.action;
            calls.push({ ...(id ? { id } : {}), name: str(fn.name) ?? "tool", input });
          }
        } else if (typeof m.action === "string" && m.action.trim()) calls.push(actionCall(m.action));
        const thought = str(m.thought) ?? content;
        sink.turn({ role: "assistant", text: thought, tool_calls: calls });
      } else if (role === "user" || role === "tool") {
        // The first user message states the task; later ones (old format) are observations of the last action.
        if (role === "user" && !seenTask) {
          seenTask = true;
          sink.turn({ role: "user", text: content });
        } else {
          const ids = Array.isArray(m.tool_call_ids) ? m.tool_call_ids.filter((x) => typeof x === "string") : [];
          sink.turn({
            role: "tool",
            tool_results: [{ ...(ids[0] ? { call_id: ids[0] as string } : {}), output: content, is_error: false }],
          });
        }
      } else sink.skip("bad_role");
    }
  } else if (steps.length > 0) {
    for (const s of steps) {
      const st = asRecord(s);
      const action = str(st.action) ?? "";
      sink.turn({
        role: "assistant",
        text: str(st.thought) ?? str(st.response) ?? "",
        tool_calls: action ? [actionCall(action)] : [],
      });
      sink.turn({ role: "tool", tool_results: [{ output: str(st.observation) ?? "", is_error: false }] });
    }
  } else {
    throw new AppError("UNKNOWN_FORMAT", "SWE-agent trajectory has neither `history` nor `trajectory` entries");
  }
  const submission = str(asRecord(root.info).submission);
  if (submission?.trim()) {
    sink.turn({
      id: "submission",
      role: "assistant",
      text: "Submitted the final patch.",
      tool_calls: [{ name: "submit", input: { patch: submission } }],
    });
  }
  return sink.done();
}
