// Markdown exports of agent sessions in no layout memcards knows by name: messages under role headings
// (`### 👤 User`, `## Assistant (model)`, `## Human`) or role labels (`**User:**`, `_**Assistant**_`) that alternate.
// Tool calls and results are read where the export gives them a recognisable shape: a `Tool use: NAME` line or a
// `Tool Result` line followed by a fenced block.
import type { ToolCall, ToolResult } from "../../conversation/schema.js";
import { redact } from "../../text/redact.js";
import { fencedBlocks, fenceMask } from "../rendering/markdown.js";
import type { Transcript } from "../schema.js";
import { withoutReasoning } from "./reasoning.js";
import { TurnSink } from "./turns.js";

type ChatRole = "user" | "assistant" | "tool" | "system";

/** Role words, lower-cased, in the common forms of a few languages; the longest one that fits is taken. */
const ROLE_WORDS: [string, ChatRole][] = (
  [
    [
      "user",
      [
        "user",
        "human",
        "you",
        "me",
        "usuario",
        "usuário",
        "utilisateur",
        "utente",
        "benutzer",
        "nutzer",
        "gebruiker",
        "użytkownik",
        "пользователь",
        "用户",
        "使用者",
        "ユーザー",
        "사용자",
      ],
    ],
    [
      "assistant",
      [
        "assistant",
        "ai",
        "claude",
        "gpt",
        "chatgpt",
        "agent",
        "model",
        "bot",
        "copilot",
        "gemini",
        "codex",
        "asistente",
        "assistente",
        "assistent",
        "ассистент",
        "助手",
        "アシスタント",
        "어시스턴트",
      ],
    ],
    ["tool", ["tool", "tool result", "tool results", "tool output", "function", "function result", "observation"]],
    ["system", ["system"]],
  ] as [ChatRole, string[]][]
)
  .flatMap(([role, words]) => words.map((w): [string, ChatRole] => [w, role]))
  .sort((a, b) => b[0].length - a[0].length);

/** Role headings or labels needed of each of user and assistant, in one shape, for a file to read as a chat. */
export const MIN_ROLE_MARKERS = 2;
/** User-then-assistant changes needed among them: the roles alternate, they are not two sections of a document. */
export const MIN_EXCHANGES = 2;
/** A marker line longer than this is prose that starts with a role word. */
const MAX_MARKER_CHARS = 160;

interface Marker {
  /** The marker's layout: `h3` for a level-3 heading, `b` for a bold label, `ib` for SpecStory's italic bold. */
  shape: string;
  role: ChatRole;
  /** Message text written on the marker line itself (`**User:** fix it`). */
  inline: string;
  timestamp?: string;
}

const TIMESTAMP = /\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?/;
const MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec";
/** What may follow a role word in a heading: a model in parentheses, a number, a date or time, `said`. */
const HEADING_META = new RegExp(
  `\\([^)]*\\)|\\[[^\\]]*\\]|<[^>]*>|\\b(?:${MONTHS})[a-z]*\\.?|\\b(?:am|pm|utc|gmt|said|says|wrote|at|on)\\b|[^\\p{L}]`,
  "giu",
);

/** The role a marker's words name, and what follows the role word; undefined when they name none. */
function roleOf(words: string): { role: ChatRole; rest: string } | undefined {
  const w = words.replace(/^[^\p{L}]+/u, "");
  const lower = w.toLowerCase();
  for (const [word, role] of ROLE_WORDS) {
    if (!lower.startsWith(word)) continue;
    const next = w.slice(word.length);
    if (/^[\p{L}\p{N}_]/u.test(next)) continue;
    return { role, rest: next };
  }
  return undefined;
}

/** A heading or label line that names a role, with its shape; undefined for any other line. */
export function roleMarker(line: string): Marker | undefined {
  if (line.length > MAX_MARKER_CHARS) return undefined;
  const heading = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/.exec(line);
  if (heading) {
    const r = roleOf(heading[2]!.replace(/[*_`]/g, ""));
    // Only metadata may follow the role word in a heading: `## User Guide` is a section, not a message.
    if (!r || r.rest.replace(HEADING_META, "").trim()) return undefined;
    const ts = TIMESTAMP.exec(r.rest)?.[0];
    return { shape: `h${heading[1]!.length}`, role: r.role, inline: "", ...(ts ? { timestamp: ts } : {}) };
  }
  const label = /^(_\*\*|\*\*|__)([^*_\n]{1,60}?)(\*\*_|\*\*|__)[ \t]*(.*)$/.exec(line);
  if (!label || (label[1] === "_**") !== (label[3] === "**_")) return undefined;
  const r = roleOf(label[2]!);
  if (!r) return undefined;
  // `**User:**`, `**User**:`, `**Assistant (gpt-4o):**`: the label ends at its colon or its closing bold.
  const inner = r.rest.replace(/\([^)]*\)/g, "").trim();
  if (inner && inner !== ":" && inner !== "：") return undefined;
  let after = label[4]!;
  const meta = /^(?:\([^)]*\)|\[[^\]]*\])?\s*[:：]?\s*/.exec(after)![0];
  const colon = /[:：]\s*$/.test(r.rest) || /[:：]/.test(meta);
  after = after.slice(meta.length);
  // A bold word opening a sentence (`**Agent** runs the tests`) is prose: a label ends in a colon or the line.
  if (after && !colon) return undefined;
  const ts = TIMESTAMP.exec(`${r.rest} ${meta}`)?.[0];
  return {
    shape: label[1] === "_**" ? "ib" : "b",
    role: r.role,
    inline: after,
    ...(ts ? { timestamp: ts } : {}),
  };
}

/** Every role marker outside fences, by line. */
function markers(lines: string[]): Map<number, Marker> {
  const mask = fenceMask(lines);
  const out = new Map<number, Marker>();
  lines.forEach((l, i) => {
    if (mask[i]) return;
    const m = roleMarker(l);
    if (m) out.set(i, m);
  });
  return out;
}

/** A heading an export writes over each exchange: a turn count or a time, not a document's section. */
const EXCHANGE_HEADING =
  /^#{1,6}\s+[^\p{L}\n]*(?:(?:turn|exchange|message|prompt|request|interaction|round|step)\b[^\p{L}\n]*\d|\d{4}-\d{2}-\d{2})/iu;

/** Whether the marker at line `at` opens right under a heading that is neither a role marker nor an exchange's. */
function underSection(lines: string[], at: number, found: Map<number, Marker>): boolean {
  for (let j = at - 1; j >= 0; j--) {
    const l = lines[j]!;
    if (!l.trim() || FILLER.test(l)) continue;
    return /^#{1,6}\s/.test(l) && !found.has(j) && !EXCHANGE_HEADING.test(l);
  }
  return false;
}

/**
 * The marker shape a markdown file is a chat in: at least MIN_ROLE_MARKERS user and assistant markers of that
 * shape, alternating at least MIN_EXCHANGES times; undefined when no shape qualifies (not a transcript).
 */
export function chatShape(text: string): string | undefined {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const found = markers(lines);
  const byShape = new Map<string, ChatRole[]>();
  const sectioned = new Map<string, number>();
  let first = true;
  for (const [at, m] of found) {
    const roles = byShape.get(m.shape);
    if (roles) roles.push(m.role);
    else byShape.set(m.shape, [m.role]);
    if (m.role === "user" && !first && underSection(lines, at, found))
      sectioned.set(m.shape, (sectioned.get(m.shape) ?? 0) + 1);
    first = false;
  }
  let best: { shape: string; n: number } | undefined;
  for (const [shape, roles] of byShape) {
    const users = roles.filter((r) => r === "user").length;
    const agents = roles.filter((r) => r === "assistant").length;
    let exchanges = 0;
    let last: ChatRole | undefined;
    for (const r of roles) {
      if (r === "assistant" && last === "user") exchanges++;
      if (r === "user" || r === "assistant") last = r;
    }
    if (users < MIN_ROLE_MARKERS || agents < MIN_ROLE_MARKERS || exchanges < MIN_EXCHANGES) continue;
    // Role sections that each open under a heading of their own are a document's (a changelog's `## 2.1.0` /
    // `### User` / `### Agent`, a prompt library's examples), not messages of one conversation.
    if ((sectioned.get(shape) ?? 0) * 2 >= users - 1) continue;
    if (!best || roles.length > best.n) best = { shape, n: roles.length };
  }
  return best?.shape;
}

/** `🔧 **Tool Use: Bash** (ID: toolu_1)`, `Tool call: read_file`, `**Function call:** \`search\``. */
const TOOL_USE =
  /^[^\p{L}\n]*(?:tool[ _-]?use|tool[ _-]?call|function[ _-]?call|calling tool|using tool|tool)\s*[:：]\s*`?([A-Za-z_][\w.:/-]{0,80})`?(.*)$/iu;
/** `📊 **Tool Result:**`, `Tool Output (error):`, `### Tool Result`, `Observation:`. */
const TOOL_RESULT =
  /^[^\p{L}\n]*(?:tool[ _-]?results?|tool[ _-]?output|function[ _-]?(?:result|output)|observation)\b(.{0,80})$/iu;
const CALL_ID = /\(ID:\s*([\w.-]+)\)/i;
const SHELL_LANG = /^(bash|sh|shell|zsh|console|powershell|pwsh|cmd|terminal)$/;
const SHELL_TOOL = /bash|shell|terminal|command|exec/i;
/** Lines an export writes between messages: rules, and a timestamp on its own (`**[2025-07-02 20:06:59]**`). */
const FILLER = /^\s*(?:[-*_]{3,}|[*_[\]()\s]*\d{4}-\d{2}-\d{2}[ T][\d:.]+Z?[*_[\]()\s]*)\s*$/;

interface Body {
  text: string;
  calls: ToolCall[];
  results: ToolResult[];
}

function callInput(name: string, fence: { lang: string; body: string } | undefined, rest: string) {
  const body = fence?.body.trim() ?? /`([^`\n]+)`/.exec(rest)?.[1] ?? "";
  if (/^[[{]/.test(body)) {
    try {
      const v: unknown = JSON.parse(body);
      if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // Not JSON: kept as text below.
    }
  }
  if (!body) return {};
  return SHELL_TOOL.test(name) || SHELL_LANG.test(fence?.lang ?? "") ? { command: body } : { text: body };
}

function fenceChar(line: string): string {
  return /^\s*(`{3,}|~{3,})/.exec(line)?.[1] ?? "```";
}

/** The last bare closing fence after `open` and before the next call or result line that follows one. */
function lastBareFence(lines: string[], open: number, fence: string): number {
  const bare = (l: string) =>
    l.trim().startsWith(fence[0]!) && new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(l);
  let last = -1;
  let prev = "";
  for (let j = open + 1; j < lines.length; j++) {
    const l = lines[j]!;
    const plain = l.replace(/\*\*|__/g, "");
    if (bare(prev) && (TOOL_USE.test(plain) || TOOL_RESULT.test(plain))) break;
    if (bare(l)) last = j;
    if (l.trim()) prev = l;
  }
  return last;
}

/**
 * A message's words, tool calls and tool results. A `Tool use`/`Tool Result` line owns the fenced block that
 * follows it within two lines; results without an id answer the oldest call still waiting.
 */
function readBody(raw: string, pending: ToolCall[], role: ChatRole): Body {
  // Reasoning is the model's: what a person wrote, tags and all, is their message.
  const lines = (role === "assistant" ? withoutReasoning(raw) : raw).split("\n");
  const mask = fenceMask(lines);
  const fences = fencedBlocks(lines.join("\n"));
  const fenceAt = new Map(fences.map((f) => [f.start, f]));
  const calls: ToolCall[] = [];
  const results: ToolResult[] = [];
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (mask[i]) {
      kept.push(line);
      continue;
    }
    const plain = line.replace(/\*\*|__/g, "");
    const use = TOOL_USE.exec(plain);
    const res = use ? undefined : TOOL_RESULT.exec(plain);
    if (!use && !res) {
      if (!FILLER.test(line)) kept.push(line);
      continue;
    }
    let fence: (typeof fences)[number] | undefined;
    for (let j = i + 1; j <= i + 2 && j < lines.length && !fence; j++) {
      fence = fenceAt.get(j);
      if (!fence && lines[j]!.trim()) break;
    }
    let end = fence ? fence.end : i;
    let output = fence?.body ?? "";
    if (res && fence) {
      // Exports fence a result without escaping the fences inside it: the output runs to the last bare fence before
      // the next call or result line that follows a closed fence, or before the message's end.
      const close = lastBareFence(lines, fence.start, fenceChar(lines[fence.start]!));
      if (close > fence.end) {
        end = close;
        output = lines.slice(fence.start + 1, close).join("\n");
      }
    }
    if (use) {
      const name = use[1]!;
      const id = CALL_ID.exec(use[2]!)?.[1];
      const call: ToolCall = { name, input: callInput(name, fence, use[2]!), ...(id ? { id } : {}) };
      calls.push(call);
      pending.push(call);
    } else {
      const id = CALL_ID.exec(res![1]!)?.[1];
      const at = id ? pending.findIndex((c) => c.id === id) : 0;
      const call = at >= 0 ? pending.splice(at, 1)[0] : undefined;
      results.push({
        name: call?.name ?? "tool",
        output,
        is_error: /error|fail|❌/i.test(res![1]!),
        ...((id ?? call?.id) ? { call_id: id ?? call!.id! } : {}),
      });
    }
    i = end;
  }
  return {
    text: kept
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
    calls,
    results,
  };
}

/** `**Project:** \`/path\``, `Working directory: /path`, `**Session ID:** x` before the first message. */
function preamble(lines: string[], sink: TurnSink): void {
  for (const l of lines) {
    // The key ends at its colon (`**Session token:**` is no session id), and a value a secret rule matches is kept out.
    const m =
      /^[*_\s-]*(project|working directory|cwd|workspace|session id|session)[*_\s]*[:：][*_\s]*`?([^`\n]+?)`?\s*$/i.exec(
        l,
      );
    if (!m) continue;
    const key = m[1]!.toLowerCase();
    const value = m[2]!.trim();
    if (redact(value) !== value) continue;
    if (key.startsWith("session")) {
      if (/^[\w.:-]{1,128}$/.test(value)) sink.sessionId ??= value;
    } else if (/^(?:\/|~\/|[A-Za-z]:[\\/])/.test(value)) sink.cwd ??= value;
  }
}

/** Parses a markdown chat export whose messages sit under role headings or labels of one shape. */
export function parseMarkdownChat(text: string): Transcript {
  const sink = new TurnSink("markdown-chat");
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  const shape = chatShape(lines.join("\n"));
  const found = [...markers(lines)].filter(([, m]) => m.shape === shape);
  if (found.length === 0) return sink.done();
  preamble(lines.slice(0, found[0]![0]), sink);
  const pending: ToolCall[] = [];
  found.forEach(([at, m], k) => {
    const end = k + 1 < found.length ? found[k + 1]![0] : lines.length;
    const body = readBody([m.inline, ...lines.slice(at + 1, end)].join("\n"), pending, m.role);
    const ts = m.timestamp ? { timestamp: m.timestamp } : {};
    if (m.role === "system") {
      if (body.text) sink.turn({ role: "system", kind: "meta", text: body.text, ...ts });
      return;
    }
    if (m.role === "assistant") {
      if (body.text || body.calls.length > 0)
        sink.turn({ role: "assistant", text: body.text, tool_calls: body.calls, ...ts });
      if (body.results.length > 0) sink.turn({ role: "tool", tool_results: body.results, ...ts });
      return;
    }
    if (m.role === "tool") {
      const results =
        body.results.length > 0 || !body.text ? body.results : [{ name: "tool", output: body.text, is_error: false }];
      if (results.length > 0) sink.turn({ role: "tool", tool_results: results, ...ts });
      return;
    }
    // A user message that carries tool results (the API's shape) answers the calls before it; its words follow.
    if (body.results.length > 0) sink.turn({ role: "tool", tool_results: body.results, ...ts });
    if (body.text || body.calls.length > 0) sink.turn({ role: "user", text: body.text, tool_calls: body.calls, ...ts });
  });
  return sink.done();
}
