// Google Antigravity step logs (JSONL, one trajectory step a line: {step_index, source, type, status, content,
// tool_calls?}). A PLANNER_RESPONSE step carries the model's text and its tool calls (arguments as JSON-encoded
// strings); each call's result is a later step of its own type (VIEW_FILE, CODE_ACTION, RUN_COMMAND, …) in order.
import type { ToolCall, ToolResult } from "../../conversation/schema.js";
import type { Transcript } from "../schema.js";
import { asRecord, jsonLines, str, TurnSink } from "./turns.js";

/** Edit tools and the canonical name the ledger reads; a CODE_ACTION step confirms the edit. */
const EDIT_TOOLS: Record<string, "edit_file" | "write"> = {
  replace_file_content: "edit_file",
  multi_replace_file_content: "edit_file",
  write_to_file: "write",
};

const CHANGED = /made by the (\w+) tool to:?[ \t]+([^\n]*)/;
const CREATED = /^Created file\s+(\S+)/m;
const EXIT = /(?:failed with|exited with) (?:exit )?code:?\s*`?(-?\d+)/i;

/** Arguments arrive as JSON-encoded values (`"\"/path\""`, `"true"`); plain strings stay as they are. */
function decodeArgs(args: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(asRecord(args))) {
    if (typeof v !== "string") {
      out[k] = v;
      continue;
    }
    try {
      out[k] = JSON.parse(v) as unknown;
    } catch {
      out[k] = v;
    }
  }
  return out;
}

/** Step output without the client's `Created At:` / `Completed At:` lines. */
function stepOutput(content: string): string {
  return content.replace(/^(?:Created|Completed) At: .*\n?/gm, "").trim();
}

/** The file a code action names: the rest of its "made by the … tool to:" line, up to a sentence's end. */
function changedPath(line: string): string | undefined {
  const stop = line.search(/\.\s/);
  const path = (stop < 0 ? line : line.slice(0, stop)).trim().replace(/\.$/, "");
  return path || undefined;
}

/** Where a code action's echo of its diff starts: the client's own words are before it. */
const ECHO = /\[diff_block_start\]/;

function failed(r: Record<string, unknown>, output: string): boolean {
  const status = str(r.status)?.toUpperCase() ?? "";
  if (/ERROR|FAIL|CANCEL/.test(status) || r.error !== undefined) return true;
  const echo = output.search(ECHO);
  const m = EXIT.exec(echo < 0 ? output : output.slice(0, echo));
  return m ? m[1] !== "0" : false;
}

export function parseAntigravity(text: string): Transcript {
  const sink = new TurnSink("antigravity-jsonl");
  let pending: ToolCall[] = [];
  for (const rec of jsonLines(text, sink)) {
    const r = asRecord(rec);
    const type = str(r.type) ?? "";
    const source = str(r.source) ?? "";
    const step = r.step_index;
    const id = typeof step === "number" || typeof step === "string" ? `s${step}` : undefined;
    const ts = str(r.created_at);
    const content = str(r.content) ?? "";
    if (type === "PLANNER_RESPONSE") {
      const calls: ToolCall[] = [];
      const raw = Array.isArray(r.tool_calls) ? r.tool_calls : [];
      raw.forEach((c, i) => {
        const o = asRecord(c);
        const input = decodeArgs(o.args ?? o.arguments);
        if (!sink.cwd && typeof input.Cwd === "string") sink.cwd = input.Cwd;
        calls.push({ id: `${id ?? "s"}-${i}`, name: str(o.name) ?? "tool", input });
      });
      // `thinking` is the model's scratchpad, not conversation.
      if (!content.trim() && calls.length === 0) {
        sink.ignore("empty_step");
        continue;
      }
      sink.turn({ id, role: "assistant", text: content, tool_calls: calls, timestamp: ts });
      pending = calls.slice();
      continue;
    }
    if (type === "USER_INPUT") {
      const req = /<USER_REQUEST>([\s\S]*?)(?:<\/USER_REQUEST>|$)/.exec(content)?.[1] ?? content;
      const human = source.startsWith("USER");
      sink.turn({ id, role: "user", kind: human ? "message" : "meta", text: human ? req : content, timestamp: ts });
      continue;
    }
    if (type === "CHECKPOINT") {
      sink.turn({ id, role: "user", kind: "compact_summary", text: content, timestamp: ts });
      continue;
    }
    if (!content.trim() && r.error === undefined) {
      // An empty result (a view of an empty file) still answers its call.
      if (type !== "SYSTEM_MESSAGE" && source !== "SYSTEM") pending.shift();
      sink.ignore(type ? `step_${type.toLowerCase()}` : "empty_step");
      continue;
    }
    if (type === "SYSTEM_MESSAGE" || (source === "SYSTEM" && type !== "ERROR_MESSAGE")) {
      // A background command's completion arrives as a system message: it is that command's result.
      const done = /finished with result:\s*([\s\S]*)$/.exec(content);
      if (done) {
        const output = done[1]!.replace(/<\/SYSTEM_MESSAGE>\s*$/, "").trim();
        const result: ToolResult = { name: "run_command", output, is_error: failed({}, output) };
        sink.turn({ id, role: "tool", tool_results: [result], timestamp: ts });
      } else sink.turn({ id, role: "system", kind: "meta", text: content, timestamp: ts });
      continue;
    }
    // Every other step is the result of the next pending call.
    const call = pending.shift();
    const output = type === "ERROR_MESSAGE" ? (str(r.error) ?? stepOutput(content)) : stepOutput(content);
    const isError = type === "ERROR_MESSAGE" || failed(r, output);
    const name = call?.name ?? type.toLowerCase();
    const result: ToolResult = { ...(call?.id ? { call_id: call.id } : {}), name, output, is_error: isError };
    // An edit that failed changed nothing: the ledger leaves it out.
    if (type === "CODE_ACTION" && isError && call) call.input = { ...call.input, failed: true };
    if (type === "CODE_ACTION" && !isError) {
      const changed = CHANGED.exec(output);
      const created = CREATED.exec(output)?.[1];
      const tool = call?.name ?? changed?.[1] ?? "write_to_file";
      const target = call?.input.TargetFile;
      // The file the step says it changed wins over the one the call aimed at.
      const stated = created ?? (changed ? changedPath(changed[2]!) : undefined);
      const path = stated ?? (typeof target === "string" && target ? target : undefined);
      const canonical = created ? "write" : (EDIT_TOOLS[tool] ?? "edit_file");
      if (path && call) {
        call.name = canonical;
        call.input = { ...call.input, path, tool };
      } else if (path) {
        // The call that made this edit is not in the log (it starts mid-session): the step itself records it.
        const edit: ToolCall = { id: `${id ?? "s"}-edit`, name: canonical, input: { path, tool } };
        sink.turn({
          id,
          role: "assistant",
          tool_calls: [edit],
          tool_results: [{ ...result, call_id: edit.id }],
          timestamp: ts,
        });
        continue;
      }
    }
    sink.turn({ id, role: "tool", tool_results: [result], timestamp: ts });
  }
  return sink.done();
}
