// Codex CLI: rollout JSONL (~/.codex/sessions/…/rollout-*.jsonl) and the markdown "Codex Conversation Export".
import type { ToolCall, ToolResult } from "../../conversation/schema.js";
import { fencedBlocks, splitAtHeaders } from "../rendering/markdown.js";
import type { Transcript } from "../schema.js";
import { asRecord, blockText, jsonLines, parseArgs, str, TurnSink } from "./turns.js";

function outputText(v: unknown): string {
  if (typeof v === "string") {
    // Older rollouts wrap shell output as JSON: {"output": "...", "metadata": {"exit_code": n}}.
    try {
      const o = asRecord(JSON.parse(v));
      if (typeof o.output === "string") return o.output;
    } catch {
      /* plain text */
    }
    return v;
  }
  const o = asRecord(v);
  if (typeof o.content === "string") return o.content;
  return blockText(v);
}

function exitFailed(v: unknown, text: string): boolean {
  if (typeof v === "string") {
    try {
      const code = asRecord(asRecord(JSON.parse(v)).metadata).exit_code;
      if (typeof code === "number") return code !== 0;
    } catch {
      /* plain text */
    }
  }
  const m = /(?:Process exited with code|Exit code:?)\s*(\d+)/.exec(text);
  if (m) return m[1] !== "0";
  return asRecord(v).success === false;
}

export function parseCodexRollout(text: string): Transcript {
  const sink = new TurnSink("codex-rollout-jsonl");
  const names = new Map<string, string>();
  let line = 0;
  for (const rec of jsonLines(text, sink)) {
    line++;
    const r = asRecord(rec);
    // Current rollouts wrap each line as {timestamp, type, payload}; the oldest wrote bare items.
    const enveloped = typeof r.type === "string" && "payload" in r;
    if (!enveloped && typeof r.record_type === "string") {
      sink.ignore(`record_${r.record_type}`);
      continue;
    }
    const type = enveloped ? str(r.type) : "response_item";
    const p = enveloped ? asRecord(r.payload) : r;
    const ts = str(r.timestamp);
    if (type === "session_meta" || (!enveloped && line === 1 && "instructions" in r && !("type" in r))) {
      sink.sessionId ??= str(p.id);
      sink.cwd ??= str(p.cwd);
      const instructions = str(p.instructions) ?? str(asRecord(p.base_instructions).text);
      if (instructions) sink.turn({ role: "system", kind: "meta", text: instructions, timestamp: ts });
      else sink.ignore("session_meta");
      continue;
    }
    if (type === "compacted") {
      sink.turn({ role: "user", kind: "compact_summary", text: str(p.message) ?? "", timestamp: ts });
      continue;
    }
    if (type !== "response_item") {
      // event_msg repeats the response items for the UI; turn_context is per-turn settings.
      sink.ignore(type ?? "untyped");
      continue;
    }
    const itype = str(p.type);
    const callId = str(p.call_id) ?? str(p.id);
    switch (itype) {
      case "message": {
        const role = str(p.role);
        const body = blockText(p.content);
        if (role === "user") {
          sink.turn({ role: "user", text: body, timestamp: ts });
        } else if (role === "assistant") sink.turn({ role: "assistant", text: body, timestamp: ts });
        else sink.turn({ role: "system", kind: "meta", text: body, timestamp: ts });
        break;
      }
      case "function_call":
      case "custom_tool_call":
      case "local_shell_call": {
        const name = str(p.name) ?? (itype === "local_shell_call" ? "shell" : "tool");
        if (callId) names.set(callId, name);
        const input =
          itype === "custom_tool_call"
            ? { patch: str(p.input) ?? "" }
            : itype === "local_shell_call"
              ? asRecord(p.action)
              : parseArgs(p.arguments);
        const call: ToolCall = { ...(callId ? { id: callId } : {}), name, input };
        sink.turn({ role: "assistant", tool_calls: [call], timestamp: ts });
        break;
      }
      case "function_call_output":
      case "custom_tool_call_output": {
        const out = outputText(p.output);
        const name = callId ? names.get(callId) : undefined;
        const res: ToolResult = {
          ...(callId ? { call_id: callId } : {}),
          ...(name ? { name } : {}),
          output: out,
          is_error: exitFailed(p.output, out),
        };
        sink.turn({ role: "tool", tool_results: [res], timestamp: ts });
        break;
      }
      case "reasoning":
        sink.ignore("reasoning");
        break;
      default:
        sink.ignore(`item_${itype ?? "untyped"}`);
    }
  }
  return sink.done();
}

type ExportHeader = { kind: "user" } | { kind: "assistant" } | { kind: "tool"; name: string } | { kind: "turn" };

function exportHeader(line: string): ExportHeader | undefined {
  if (/^### Turn \d+/.test(line)) return { kind: "turn" };
  if (/^#### 👤 /u.test(line) || /^#### User\b/.test(line)) return { kind: "user" };
  const tool = /^#### Tool: (\S+)/.exec(line);
  if (tool) return { kind: "tool", name: tool[1]! };
  if (/^#### 🤖 /u.test(line) || /^#### Assistant\b/.test(line)) return { kind: "assistant" };
  return undefined;
}

const TIME = /^- Time:\s*(\S+)/m;

export function parseCodexExport(raw: string): Transcript {
  const text = raw.replace(/\r\n?/g, "\n");
  const sink = new TurnSink("codex-export-md");
  sink.sessionId = /^- Thread ID:\s*(\S+)/m.exec(text)?.[1];
  sink.cwd = /^- CWD:\s*(.+)$/m.exec(text)?.[1]?.trim();
  for (const s of splitAtHeaders(text, exportHeader)) {
    const h = s.header;
    const ts = TIME.exec(s.body)?.[1];
    const body = s.body.replace(TIME, "").trim();
    if (!h) {
      if (body) sink.turn({ role: "system", kind: "meta", text: body });
      continue;
    }
    if (h.kind === "turn") {
      sink.title ??= s.headerLine.replace(/^### Turn \d+:\s*/, "").trim();
      if (body) sink.ignore("turn_header_text");
      continue;
    }
    if (h.kind === "user") {
      const fences = fencedBlocks(body);
      const prompt = fences.length === 1 && body.trim().startsWith("```") ? fences[0]!.body : body;
      sink.turn({ role: "user", text: prompt, timestamp: ts });
    } else if (h.kind === "assistant") {
      sink.turn({ role: "assistant", text: body, timestamp: ts });
    } else {
      const outAt = body.search(/^Output:\s*$/m);
      const inputPart = outAt >= 0 ? body.slice(0, outAt) : body;
      const outputPart = outAt >= 0 ? body.slice(outAt).replace(/^Output:\s*/, "") : "";
      const inFences = fencedBlocks(inputPart);
      const input: Record<string, unknown> =
        inFences.length > 0 ? { command: inFences[0]!.body } : { text: inputPart.trim() };
      const outFences = fencedBlocks(outputPart);
      const output = outFences.length > 0 ? outFences.map((f) => f.body).join("\n") : outputPart.trim();
      sink.turn({
        role: "assistant",
        tool_calls: [{ name: h.name, input }],
        tool_results: outAt >= 0 ? [{ name: h.name, output, is_error: exitFailed(undefined, output) }] : [],
        timestamp: ts,
      });
    }
  }
  return sink.done();
}
