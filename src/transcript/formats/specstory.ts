// SpecStory markdown exports (Cursor, VS Code Copilot, Claude Code, Gemini CLI, Codex): old and new styles.
import type { ToolCall, ToolResult } from "../../conversation/schema.js";
import { fencedBlocks, splitAtHeaders } from "../markdown.js";
import type { Transcript } from "../schema.js";
import { TurnSink } from "../turns.js";

interface Header {
  role: "user" | "assistant";
  sidechain: boolean;
  timestamp?: string;
}

const HEADER = /^_\*\*(User|Assistant|Agent)(\s*-\s*sidechain)?(?:\s*\(([^)]*)\))?\*\*_\s*$/;
const TS = /(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}Z?)/;

function header(line: string): Header | undefined {
  const m = HEADER.exec(line);
  if (!m) return undefined;
  const ts = m[3] ? TS.exec(m[3])?.[1] : undefined;
  return { role: m[1] === "User" ? "user" : "assistant", sidechain: Boolean(m[2]), ...(ts ? { timestamp: ts } : {}) };
}

const TOOL_USE = /<tool-use\b([^>]*)>([\s\S]*?)<\/tool-use>/g;
const THINK = /<think>[\s\S]*?<\/think>/g;
const ATTR = /data-tool-(type|name)="([^"]*)"/g;
const WRITE_PATH =
  /(?:File created successfully at:?|The file|Updated|Created|Wrote to|Successfully (?:wrote|modified|overwrote)(?: file)?:?)\s+`?([^\s`]+\.[\w]+)`?/;
/** Paths with an extension, as people and tools write them (POSIX or Windows). */
export const PATH_TOKEN =
  /(?:[A-Za-z]:)?(?:[\w.@-]+[/\\])*[\w@-][\w.@-]*\.(?:[a-z]{1,5}x?|ya?ml|json|toml|cfg|ini|sql|env|mdc)\b/gi;
const INLINE_CMD = /^`([^`\n]+)`\s*$/m;
const ERROR_OUT = /(^|\n)\s*(Error(?!: \(none\))|error:|<tool_use_error>|Traceback|Exit [Cc]ode:? [1-9])/;

function toolUse(attrs: string, inner: string): { call: ToolCall; result?: ToolResult } {
  const a: Record<string, string> = {};
  for (const m of attrs.matchAll(ATTR)) a[m[1]!] = m[2]!;
  const name = a.name || "tool";
  const fences = fencedBlocks(inner);
  const outFence = fences.length > 0 ? fences[fences.length - 1] : undefined;
  const input: Record<string, unknown> = { type: a.type ?? "unknown" };
  const cmd = INLINE_CMD.exec(inner.replace(/<summary>[\s\S]*?<\/summary>/, ""));
  if (cmd) input.command = cmd[1];
  const path = WRITE_PATH.exec(inner)?.[1];
  if (path) input.file_path = path;
  else if (a.type === "read" || a.type === "write") {
    const p = inner.replace(/<summary>[\s\S]*?<\/summary>/, "").match(PATH_TOKEN)?.[0];
    if (p) input.file_path = p;
  }
  if (fences.length > 1 && a.type === "write") input.content = fences[0]!.body;
  const output = outFence?.body ?? "";
  return {
    call: { name, input },
    ...(outFence ? { result: { name, output, is_error: ERROR_OUT.test(output) } } : {}),
  };
}

/** Old-style blocks: `Read file: X`, ```diff edits, ```bash commands, Copilot `### [file](link)` edits. */
function oldStyleCalls(body: string): ToolCall[] {
  const calls: ToolCall[] = [];
  const lines = body.split("\n");
  let lastPath: string | undefined;
  let lastMention: string | undefined;
  const fences = fencedBlocks(body);
  let f = 0;
  for (let i = 0; i < lines.length; i++) {
    const fence = fences[f];
    if (fence && fence.start === i) {
      f++;
      if (fence.lang === "diff") {
        const head = fence.body.split("\n").slice(0, 3).join("\n").match(PATH_TOKEN)?.[0];
        const path = head ?? lastMention ?? lastPath;
        const added = fence.body.split("\n").filter((l) => l.startsWith("+")).length;
        const removed = fence.body.split("\n").filter((l) => l.startsWith("-")).length;
        calls.push({ name: "Edit", input: { ...(path ? { file_path: path } : {}), op: `diff +${added}/-${removed}` } });
      } else if (/^(bash|sh|shell|zsh|console|powershell|cmd)$/.test(fence.lang)) {
        calls.push({ name: "Bash", input: { command: fence.body.trim() } });
      }
      i = fence.end;
      continue;
    }
    const line = lines[i]!;
    if (/^\s*-{3,}\s*$/.test(line)) {
      // A new segment: a file named in an earlier paragraph no longer says which file a diff edits.
      lastMention = undefined;
      continue;
    }
    const read = /^Read file:\s*(.+)$/.exec(line);
    if (read) {
      lastPath = read[1]!.trim();
      calls.push({ name: "Read", input: { file_path: lastPath } });
      continue;
    }
    const copilot = /^#{2,4}\s*\[([^\]]+)\]\((?:file:\/\/)?([^)]+)\)/.exec(line);
    if (copilot) {
      const p = decodeURIComponent(copilot[2]!);
      calls.push({ name: "Edit", input: { file_path: p, op: "edit" } });
      lastMention = p;
      continue;
    }
    const mentions = line.match(PATH_TOKEN);
    if (mentions) lastMention = mentions[mentions.length - 1];
  }
  return calls;
}

export function parseSpecStory(text: string): Transcript {
  const sink = new TurnSink("specstory-md");
  sink.title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
  const sections = splitAtHeaders(text, header);
  for (const s of sections) {
    if (!s.header) {
      if (s.body.trim()) sink.ignore("preamble");
      continue;
    }
    const h = s.header;
    let body = s.body.replace(/\n-{3,}\s*$/g, "").replace(THINK, "");
    if (h.role === "user") {
      sink.turn({
        role: "user",
        text: body.replace(/^\s*-{3,}\s*$/gm, ""),
        timestamp: h.timestamp,
        sidechain: h.sidechain,
      });
      continue;
    }
    const calls: ToolCall[] = [];
    const results: ToolResult[] = [];
    if (body.includes("<tool-use")) {
      body = body.replace(TOOL_USE, (_all, attrs: string, inner: string) => {
        const t = toolUse(attrs, inner);
        calls.push(t.call);
        if (t.result) results.push(t.result);
        return "";
      });
    } else calls.push(...oldStyleCalls(body));
    const prose = body.replace(/^\s*-{3,}\s*$/gm, "");
    if (!prose.trim() && calls.length === 0) {
      sink.ignore("empty_block");
      continue;
    }
    sink.turn({
      role: "assistant",
      text: prose,
      tool_calls: calls,
      tool_results: results,
      timestamp: h.timestamp,
      sidechain: h.sidechain,
    });
  }
  return sink.done();
}
