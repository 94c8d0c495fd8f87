// Replit Agent logs (JSONL, one memory a line: {memory_id, messages: [{role, content, tool_calls?, is_error?}]}).
// Assistant tool calls carry no ids: the `tool` messages that follow answer them in order. The person's words are
// inside `<user_message>`; what the client attaches there (`<attached_contents>`) is context, not what they typed.
import type { ToolCall, ToolResult } from "../../conversation/schema.js";
import type { Transcript } from "../schema.js";
import { asRecord, jsonLines, parseArgs, str, TurnSink } from "./turns.js";

const EXIT = /exit code:?\s*`?(-?\d+)`?/i;
const FAILED = /^\s*<error>|^[^\n]*\breturned an error\b/;

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const b of content) {
    const o = asRecord(b);
    if (typeof o.text === "string") parts.push(o.text);
    else if (typeof o.type === "string" && o.type.startsWith("image")) parts.push("[image]");
  }
  return parts.join("\n");
}

function failed(m: Record<string, unknown>, output: string): boolean {
  if (m.is_error === true) return true;
  const exit = EXIT.exec(output.split("\n", 1)[0] ?? "");
  if (exit) return exit[1] !== "0";
  return FAILED.test(output);
}

export function parseReplit(text: string): Transcript {
  const sink = new TurnSink("replit-agent-jsonl");
  let pending: ToolCall[] = [];
  let line = 0;
  for (const rec of jsonLines(text, sink)) {
    line++;
    const r = asRecord(rec);
    const mem = typeof r.memory_id === "number" || typeof r.memory_id === "string" ? String(r.memory_id) : `l${line}`;
    if (!Array.isArray(r.messages)) {
      sink.skip("no_messages");
      continue;
    }
    r.messages.forEach((raw, i) => {
      const m = asRecord(raw);
      const id = `m${mem}-${i}`;
      const role = str(m.role);
      const body = contentText(m.content);
      if (role === "user") {
        const inner = /<user_message>([\s\S]*?)(?:<\/user_message>|$)/.exec(body)?.[1];
        if (inner === undefined) {
          // Anything the client puts in the user's place without the tag is its own text.
          sink.turn({ id, role: "user", kind: /^\s*</.test(body) ? "meta" : "message", text: body });
          return;
        }
        const attached = /<attached_contents>[\s\S]*?(?:<\/attached_contents>|$)/.exec(inner)?.[0];
        sink.turn({ id, role: "user", text: attached ? inner.replace(attached, "") : inner });
        if (attached) sink.turn({ id: `${id}-attached`, role: "user", kind: "meta", text: attached });
        return;
      }
      if (role === "assistant") {
        const calls: ToolCall[] = [];
        const raws = Array.isArray(m.tool_calls) ? m.tool_calls : [];
        raws.forEach((c, j) => {
          const o = asRecord(c);
          const fn = asRecord(o.function);
          const name = str(o.name) ?? str(fn.name) ?? "tool";
          calls.push({ id: str(o.id) ?? `${id}-c${j}`, name, input: parseArgs(o.arguments ?? fn.arguments) });
        });
        if (!body.trim() && calls.length === 0) {
          sink.ignore("empty_message");
          return;
        }
        sink.turn({ id, role: "assistant", text: body, tool_calls: calls });
        if (calls.length > 0) pending = calls.slice();
        return;
      }
      if (role === "tool") {
        const callId = str(m.tool_call_id);
        const at = callId ? pending.findIndex((c) => c.id === callId) : 0;
        const call = at >= 0 ? pending.splice(at, 1)[0] : undefined;
        const isError = failed(m, body);
        const result: ToolResult = {
          ...(call?.id ? { call_id: call.id } : {}),
          ...(call ? { name: call.name } : {}),
          output: body,
          is_error: isError,
        };
        // A call that failed changed nothing: the ledger leaves it out.
        if (call && isError) call.input = { ...call.input, failed: true };
        sink.turn({ id, role: "tool", tool_results: [result] });
        return;
      }
      sink.turn({ id, role: "system", kind: "meta", text: body });
    });
  }
  return sink.done();
}
