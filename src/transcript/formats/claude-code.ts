// Claude Code session logs (~/.claude/projects/<project>/<session>.jsonl).
import type { ToolCall, ToolResult } from "../../conversation/schema.js";
import type { Transcript } from "../schema.js";
import { asRecord, blockText, jsonLines, str, TurnSink } from "./turns.js";

/** A slash command as the user typed it: `<command-name>/x</command-name><command-args>y</command-args>` → `/x y`. */
function commandText(body: string): string {
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(body)?.[1]?.trim();
  if (!name) return body;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(body)?.[1]?.trim();
  return `${name.startsWith("/") ? name : `/${name}`}${args ? ` ${args}` : ""}`;
}

/** Calls the ledger reads by name already; their `toolUseResult` adds nothing. */
const EDIT_NAMES = new Set(["edit", "multiedit", "write", "notebookedit"]);

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  return blockText(content);
}

export function parseClaudeCode(text: string): Transcript {
  const sink = new TurnSink("claude-code-jsonl");
  const seen = new Set<string>();
  const names = new Map<string, string>();
  for (const rec of jsonLines(text, sink)) {
    const r = asRecord(rec);
    const type = str(r.type);
    const uuid = str(r.uuid);
    if (uuid) {
      if (seen.has(uuid)) {
        sink.ignore("duplicate_uuid");
        continue;
      }
      seen.add(uuid);
    }
    sink.sessionId ??= str(r.sessionId);
    sink.cwd ??= str(r.cwd);
    if (type === "summary") {
      sink.title ??= str(r.summary);
      sink.ignore("summary_title");
      continue;
    }
    if (type === "custom-title") {
      sink.title = str(r.customTitle) ?? sink.title;
      sink.ignore("custom_title");
      continue;
    }
    if (type === "system") {
      const sub = str(r.subtype);
      if (sub === "compact_boundary") {
        sink.turn({ id: uuid, role: "system", kind: "meta", text: "[compact boundary]", timestamp: str(r.timestamp) });
      } else sink.ignore(`system_${sub ?? "record"}`);
      continue;
    }
    if (type !== "user" && type !== "assistant") {
      sink.ignore(type ?? "untyped");
      continue;
    }
    const msg = asRecord(r.message);
    const content = msg.content;
    if (content === undefined) {
      sink.skip("no_message_content");
      continue;
    }
    const texts: string[] = [];
    const calls: ToolCall[] = [];
    const results: ToolResult[] = [];
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content)) {
      for (const b of content) {
        const blk = asRecord(b);
        switch (blk.type) {
          case "text":
            if (typeof blk.text === "string") texts.push(blk.text);
            break;
          case "tool_use": {
            const name = str(blk.name) ?? "tool";
            const id = str(blk.id);
            if (id) names.set(id, name);
            calls.push({ ...(id ? { id } : {}), name, input: asRecord(blk.input) });
            break;
          }
          case "tool_result": {
            const callId = str(blk.tool_use_id);
            const name = callId ? names.get(callId) : undefined;
            results.push({
              ...(callId ? { call_id: callId } : {}),
              ...(name ? { name } : {}),
              output: resultText(blk.content),
              is_error: blk.is_error === true,
            });
            break;
          }
          case "image":
            texts.push("[image]");
            break;
          default:
            break; // thinking and redacted thinking are the model's scratchpad, not conversation
        }
      }
    } else {
      sink.skip("bad_message_content");
      continue;
    }
    // The client's record of a file the tool changed (`toolUseResult.filePath` with a patch or a create/update):
    // an edit even when the call that made it is not one the ledger knows by name.
    const done = asRecord(r.toolUseResult);
    if (typeof done.filePath === "string" && ("structuredPatch" in done || done.type === "create")) {
      const callId = results[0]?.call_id;
      const by = callId ? names.get(callId) : undefined;
      if (!by || !EDIT_NAMES.has(by.toLowerCase()))
        calls.push({
          name: "file_changed",
          input: { file_changes: [{ path: done.filePath, op: done.type === "create" ? "created" : "edited" }] },
        });
    }
    const body = commandText(texts.join("\n"));
    if (!body.trim() && calls.length === 0 && results.length === 0) {
      sink.ignore("empty_message");
      continue;
    }
    const compact = r.isCompactSummary === true;
    // Injected user texts (reminders, local command output, skills, CI events) are classified by the turn sink.
    const meta = r.isMeta === true;
    const role = type === "assistant" ? "assistant" : results.length > 0 && !body.trim() ? "tool" : "user";
    sink.turn({
      id: uuid,
      role,
      kind: compact ? "compact_summary" : meta ? "meta" : "message",
      text: body,
      tool_calls: calls,
      tool_results: results,
      timestamp: str(r.timestamp),
      sidechain: r.isSidechain === true,
    });
  }
  return sink.done();
}
