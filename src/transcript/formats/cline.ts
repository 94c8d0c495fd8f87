// Cline-family exports: Cline's "Export task" markdown (`**User:**` / `**Assistant:**` blocks joined by `---`) and
// chat exports of Cline forks such as Blackbox AI (`## 💬 User #N` / `## 🤖 Assistant #N`). The assistant calls tools
// as XML blocks (`<write_to_file><path>…</path><content>…</content></write_to_file>`); the client answers in a
// "user" turn that starts `[tool for 'arg'] Result:` and appends `<environment_details>`. The person's own words are
// only those inside `<task>`, `<feedback>`, `<answer>` and `<user_message>`.
import type { ToolCall, ToolResult } from "../../conversation/schema.js";
import type { Transcript } from "../schema.js";
import { TurnSink } from "./turns.js";

/** The client's edit tools and the canonical name the ledger reads (`edit_file`/`write` with `input.path`). */
const EDIT_TOOLS: Record<string, "edit_file" | "write"> = {
  write_to_file: "write",
  create_file: "write",
  new_file: "write",
  replace_in_file: "edit_file",
  apply_diff: "edit_file",
  edit_file: "edit_file",
  insert_content: "edit_file",
  search_and_replace: "edit_file",
  multi_apply_diff: "edit_file",
};

/** Tags that wrap prose, never a tool call. */
const NOT_TOOLS = new Set([
  "thinking",
  "think",
  "task",
  "feedback",
  "answer",
  "user_message",
  "environment_details",
  "error",
  "explanation",
]);

/** The tags that hold the person's own words. */
const HUMAN_TAGS = ["task", "feedback", "answer", "user_message"];
const ENV = /<environment_details>[\s\S]*?(?:<\/environment_details>|$)/g;
const RESUMPTION = /^\[TASK RESUMPTION\]/m;
const HEAD_START = /^\[([a-z][\w-]*)(\] Result:[ \t]*$| for ')/gm;
const HEAD_END = /'\] Result:[ \t]*$/gm;

interface Head {
  name: string;
  start: number;
  end: number;
}

/**
 * The `[tool for 'arg'] Result:` lines of a user message. The argument may span lines (a question), so each
 * header's end is the next `'] Result:` line end after it: found from one list of them, in linear time.
 */
function resultHeads(body: string): Head[] {
  const ends = [...body.matchAll(HEAD_END)].map((m) => m.index + m[0].length);
  const out: Head[] = [];
  let e = 0;
  let after = 0;
  for (const m of body.matchAll(HEAD_START)) {
    if (m.index < after) continue;
    if (m[2]!.startsWith("]")) {
      out.push({ name: m[1]!, start: m.index, end: m.index + m[0].length });
      after = m.index + m[0].length;
      continue;
    }
    while (e < ends.length && ends[e]! <= m.index) e++;
    const end = ends[e];
    if (end === undefined || end - m.index > 4000) continue;
    out.push({ name: m[1]!, start: m.index, end });
    after = end;
  }
  return out;
}
/** Errors the editor reports in a file just saved (`- [eslint Error] Line 3: …`): the save itself succeeded. */
const DIAGNOSTICS = /New problems detected after saving the file:[\s\S]{0,4000}?^[ \t]*- \[[^\]\n]*\bError\]/m;
/** The client telling the model its last response was unusable: an error of the step, not the person's words. */
const CLIENT_ERROR = /^\s*\[ERROR\]/;
/** A step the client reports as failed, denied or exiting non-zero. */
const FAILED =
  /The user denied this operation|The tool execution failed|^[ \t]*<error>|^[ \t]*\[ERROR\]|Exit code:?[ \t]*`?[1-9]|exited with code `?[1-9]|Command execution was not successful|FullyQualifiedErrorId[ \t]*:/m;
/** Where a saved edit's echo of the file (or of its diff) starts: the client's own status lines are before it. */
const ECHO = /<final_file_content\b|\[diff_block_start\]|Here is the full, updated content of the file/;

/** The client's own words about a step: its output up to any echo of the file it saved. */
function statusText(output: string): string {
  const at = output.search(ECHO);
  return at < 0 ? output : output.slice(0, at);
}

/**
 * The person's words in `text` (inside the human tags) and the text without them; unclosed tags stay text. In a
 * tool's result only a tag the client frames counts (at the start, or after its "…feedback:" line): the same tag
 * inside a file the tool read is the file's.
 */
function humanParts(text: string, inResult: boolean): { human: string[]; rest: string } {
  const spans: { start: number; end: number; inner: string }[] = [];
  const framed = (at: number): boolean => {
    if (!inResult) return true;
    const before = text.slice(Math.max(0, at - 400), at).trimEnd();
    if (at <= 400 && !before.trim()) return true;
    const lastLine = before.slice(before.lastIndexOf("\n") + 1);
    return /\bfeedback\b/i.test(lastLine);
  };
  for (const tag of HUMAN_TAGS) {
    const open = `<${tag}>`;
    const close = `</${tag}>`;
    let at = text.indexOf(open);
    while (at >= 0) {
      const end = text.indexOf(close, at + open.length);
      if (end < 0) break;
      if (framed(at))
        spans.push({ start: at, end: end + close.length, inner: text.slice(at + open.length, end).trim() });
      at = text.indexOf(open, end + close.length);
    }
  }
  spans.sort((a, b) => a.start - b.start);
  const human: string[] = [];
  let rest = "";
  let from = 0;
  for (const sp of spans) {
    if (sp.start < from) continue; // nested inside an earlier span
    rest += text.slice(from, sp.start);
    if (sp.inner) human.push(sp.inner);
    from = sp.end;
  }
  return { human, rest: rest + text.slice(from) };
}

function trimValue(v: string): string {
  return v.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
}

/** The parameters of one tool block, read in order: `<name>value</name>` each. */
function params(body: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let pos = 0;
  let n = 0;
  for (;;) {
    const rest = body.slice(pos);
    const open = /^\s*<([a-z_][\w-]*)>/.exec(rest);
    if (!open) break;
    const start = pos + open[0].length;
    const close = body.indexOf(`</${open[1]}>`, start);
    const end = close < 0 ? body.length : close;
    out[open[1]!] = trimValue(body.slice(start, end));
    n++;
    if (close < 0) break;
    pos = close + open[1]!.length + 3;
  }
  return n > 0 ? out : undefined;
}

/** Tool blocks in an assistant message, and the prose around them. */
function assistantParts(raw: string, nextId: () => string): { text: string; calls: ToolCall[] } {
  // Some models wrap their calls in `<minimax:tool_call>`-style lines.
  const body = raw.replace(/^[ \t]*<\/?[\w-]+:tool_call>[ \t]*$/gm, "");
  const calls: ToolCall[] = [];
  const prose: string[] = [];
  const said: string[] = [];
  const open = /^[ \t]*<([a-z][a-z0-9_]*)>/gm;
  // A tag with no closing tag after one opening has none after a later one either.
  const unclosed = new Set<string>();
  // The next closing tag of each name: found once, searched again only after a call consumed it.
  const closes = new Map<string, number>();
  let from = 0;
  let m: RegExpExecArray | null;
  while ((m = open.exec(body))) {
    const name = m[1]!;
    if (NOT_TOOLS.has(name) || unclosed.has(name)) continue;
    const inner = m.index + m[0].length;
    let close = closes.get(name) ?? -2;
    if (close < inner) {
      close = body.indexOf(`</${name}>`, inner);
      closes.set(name, close);
    }
    if (close < 0) {
      unclosed.add(name); // cut off: not a call that ran
      continue;
    }
    const input = params(body.slice(inner, close));
    if (!input) continue;
    prose.push(body.slice(from, m.index));
    const call: ToolCall = { id: nextId(), name, input };
    calls.push(call);
    // What the assistant says to the person through a tool is conversation too.
    if (name === "attempt_completion" && input.result) said.push(input.result);
    if ((name === "ask_followup_question" || name === "plan_mode_respond") && (input.question ?? input.response))
      said.push((input.question ?? input.response)!);
    from = close + name.length + 3;
    open.lastIndex = from;
  }
  prose.push(body.slice(from));
  const text = [prose.join("\n"), ...said]
    .join("\n")
    .replace(/<\/?(thinking|think)>/g, "")
    .replace(/\n{3,}/g, "\n\n");
  return { text, calls };
}

interface Message {
  role: "user" | "assistant";
  body: string;
  timestamp?: string;
}

/** Reads the messages of either export into turns. */
function readMessages(messages: Message[], sink: TurnSink): void {
  let pending: ToolCall[] = [];
  let callN = 0;
  let humanSeen = false;
  const nextId = () => `call${callN++}`;
  for (const msg of messages) {
    const ts = msg.timestamp;
    if (msg.role === "assistant") {
      const { text, calls } = assistantParts(msg.body, nextId);
      if (!text.trim() && calls.length === 0) {
        sink.ignore("empty_message");
        continue;
      }
      sink.turn({ role: "assistant", text, tool_calls: calls, timestamp: ts });
      pending = calls.slice();
      continue;
    }
    const env: string[] = [];
    let body = msg.body.replace(ENV, (all) => {
      env.push(all);
      return "";
    });
    if (!sink.cwd) {
      const cwd = /# Current Working Directory \(([^\n]{1,1000}?)\) Files/.exec(env.join("\n"))?.[1];
      if (cwd) sink.cwd = cwd;
    }
    body = body.replace(/\n-{3,}\s*$/, "");
    const heads = resultHeads(body);
    const segments: { head?: Head; text: string }[] = [];
    segments.push({ text: body.slice(0, heads[0]?.start ?? body.length) });
    heads.forEach((h, i) => {
      const text = body.slice(h.end, heads[i + 1]?.start ?? body.length);
      // The client appends a resumed task's notice (and the person's new words) after the last result.
      const resumed = text.search(RESUMPTION);
      if (resumed < 0) segments.push({ head: h, text });
      else segments.push({ head: h, text: text.slice(0, resumed) }, { text: text.slice(resumed) });
    });
    for (const seg of segments) {
      const { human, rest } = humanParts(seg.text, seg.head !== undefined);
      if (seg.head) {
        const name = seg.head.name;
        const at = pending.findIndex((c) => c.name === name);
        const call = at >= 0 ? pending.splice(at, 1)[0] : undefined;
        const output = seg.text.trim();
        const failed = FAILED.test(statusText(output));
        const result: ToolResult = {
          ...(call?.id ? { call_id: call.id } : {}),
          name,
          output,
          is_error: failed || DIAGNOSTICS.test(output),
        };
        // An edit the client saved becomes the canonical call the ledger reads; a denied or failed one is marked so.
        const canonical = EDIT_TOOLS[name];
        if (call && canonical) {
          call.input = failed ? { ...call.input, failed: true } : { ...call.input, tool: name, applied: true };
          if (!failed) call.name = canonical;
        }
        sink.turn({ role: "tool", tool_results: [result], timestamp: ts });
      } else {
        const left = rest.trim();
        if (human.length === 0 && CLIENT_ERROR.test(left)) {
          sink.turn({ role: "tool", tool_results: [{ output: left, is_error: true }], timestamp: ts });
          continue;
        }
        if (left) {
          if (human.length === 0 && !humanSeen) {
            humanSeen = true;
            sink.turn({ role: "user", text: left, timestamp: ts });
            continue;
          }
          sink.turn({ role: "user", kind: "meta", text: left, timestamp: ts });
        }
      }
      if (human.length > 0) {
        humanSeen = true;
        sink.turn({ role: "user", text: human.join("\n\n"), timestamp: ts });
      }
    }
    if (env.length > 0) sink.turn({ role: "user", kind: "meta", text: env.join("\n"), timestamp: ts });
  }
}

/**
 * `**User:**` / `**Assistant:**` at the top or after a `---` separator line. The client's messages alternate, so a
 * header of the role already speaking is text of that message (a file a tool read that holds an export).
 */
export function parseCline(text: string): Transcript {
  const sink = new TurnSink("cline-md");
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  const messages: Message[] = [];
  let cur: { role: "user" | "assistant"; lines: string[] } | undefined;
  let lastNonEmpty = "";
  let atTop = true;
  for (const line of lines) {
    const h = /^\*\*(User|Assistant):\*\*\s*$/.exec(line);
    const role = h?.[1] === "User" ? "user" : "assistant";
    if (h && (atTop || (/^-{3,}\s*$/.test(lastNonEmpty) && role !== cur?.role))) {
      if (cur) messages.push({ role: cur.role, body: cur.lines.join("\n") });
      cur = { role, lines: [] };
    } else if (cur) cur.lines.push(line);
    else if (line.trim()) sink.ignore("preamble");
    if (line.trim()) {
      lastNonEmpty = line;
      atTop = false;
    }
  }
  if (cur) messages.push({ role: cur.role, body: cur.lines.join("\n") });
  readMessages(messages, sink);
  return sink.done();
}

const BB_HEADER = /^##\s+(?:\S+\s+)?(User|Assistant)\s+#(\d+)\s*$/u;
const BB_TIME = /^\s*_(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}Z?)_\s*$/;

/** A chat export with YAML front matter and numbered `## 💬 User #N` / `## 🤖 Assistant #N` sections. */
export function parseBlackbox(text: string): Transcript {
  const sink = new TurnSink("blackbox-md");
  const src = text.replace(/^\uFEFF/, "");
  const front = /^---\n([\s\S]*?)\n---\n/.exec(src)?.[1] ?? "";
  const title = /^title:[ \t]*([^\n]*)/m
    .exec(front)?.[1]
    ?.trim()
    .replace(/^"([\s\S]*)"$/, "$1");
  sink.title = title ?? /^#[ \t]+([^\n]+)/m.exec(src)?.[1]?.trim();
  sink.sessionId = /^\*\*Session ID\*\*:\s*`?([^`\s]+)`?/m.exec(src)?.[1];
  const messages: Message[] = [];
  let cur: { role: "user" | "assistant"; lines: string[] } | undefined;
  let last = 0;
  for (const line of src.split("\n")) {
    const h = BB_HEADER.exec(line);
    // Each section is numbered one more than the last: a header-like line inside a tool's output starts none.
    if (h && (last === 0 || Number(h[2]) === last + 1)) {
      last = Number(h[2]);
      if (cur) messages.push(toMessage(cur));
      cur = { role: h[1] === "User" ? "user" : "assistant", lines: [] };
    } else if (cur) cur.lines.push(line);
  }
  if (cur) messages.push(toMessage(cur));
  readMessages(messages, sink);
  return sink.done();
}

function toMessage(cur: { role: "user" | "assistant"; lines: string[] }): Message {
  const first = cur.lines.findIndex((l) => l.trim());
  const ts = first >= 0 ? BB_TIME.exec(cur.lines[first]!)?.[1] : undefined;
  const lines = ts ? cur.lines.slice(first + 1) : cur.lines;
  return { role: cur.role, body: lines.join("\n"), ...(ts ? { timestamp: ts } : {}) };
}
