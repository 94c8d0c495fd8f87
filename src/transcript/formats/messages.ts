// A plain JSON array of {role, content} messages (OpenAI-style tool calls are read too).
import type { Role, ToolCall } from "../../conversation/schema.js";
import { AppError } from "../../errors.js";
import type { Transcript } from "../schema.js";
import { jsonProblem } from "./json-error.js";
import { asRecord, blockText, parseArgs, str, TurnSink } from "./turns.js";

const ROLES = new Set(["user", "assistant", "tool", "system", "developer", "human", "ai", "function"]);

function role(r: string): Role {
  if (r === "human") return "user";
  if (r === "ai") return "assistant";
  if (r === "function") return "tool";
  if (r === "developer") return "system";
  return r as Role;
}

/** Reads parsed JSON: an array of messages, or `{messages: [...]}`. */
export function parseMessagesValue(value: unknown, format: "messages-json" = "messages-json"): Transcript {
  const arr = Array.isArray(value) ? value : asRecord(value).messages;
  if (!Array.isArray(arr)) {
    throw new AppError("UNKNOWN_FORMAT", "expected a JSON array of {role, content} messages (or {messages: [...]})");
  }
  const sink = new TurnSink(format);
  for (const m of arr) {
    const o = asRecord(m);
    const r = str(o.role);
    if (!r || !ROLES.has(r)) {
      sink.skip("bad_role");
      continue;
    }
    const calls: ToolCall[] = [];
    if (Array.isArray(o.tool_calls)) {
      for (const c of o.tool_calls) {
        const fn = asRecord(asRecord(c).function);
        calls.push({
          ...(str(asRecord(c).id) ? { id: str(asRecord(c).id) } : {}),
          name: str(fn.name) ?? "tool",
          input: parseArgs(fn.arguments),
        });
      }
    }
    const text = blockText(o.content);
    const rr = role(r);
    sink.turn({
      role: rr,
      kind: rr === "system" ? "meta" : "message",
      text: rr === "tool" ? "" : text,
      tool_calls: calls,
      tool_results:
        rr === "tool"
          ? [{ output: text, is_error: false, ...(str(o.tool_call_id) ? { call_id: str(o.tool_call_id) } : {}) }]
          : [],
      ...(str(o.timestamp) ? { timestamp: str(o.timestamp) } : {}),
    });
  }
  return sink.done();
}

export function parseMessages(text: string): Transcript {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The engine's message quotes the text; name the place instead.
    throw new AppError("UNKNOWN_FORMAT", `JSON messages: ${jsonProblem(text)}`);
  }
  return parseMessagesValue(value);
}
