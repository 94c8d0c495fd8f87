// aider's .aider.chat.history.md: `#### ` user input, `> ` tool output, assistant text in between.
import type { ToolCall } from "../../conversation/schema.js";
import { textMarkers } from "../events/ledger.js";
import { fenceMask } from "../rendering/markdown.js";
import type { Transcript } from "../schema.js";
import { withoutReasoning } from "./reasoning.js";
import { TurnSink } from "./turns.js";

type Kind = "user" | "tool" | "assistant" | "start";

function kindOf(line: string, inFence: boolean): Kind | undefined {
  // aider writes user input at column 0 whatever came before: an unclosed fence in a reply must not swallow it.
  if (line.startsWith("# aider chat started at")) return "start";
  if (line.startsWith("#### ") || line === "####") return "user";
  if (inFence) return undefined;
  if (line.startsWith(">")) return "tool";
  return undefined;
}

/** aider pads its markdown lines with two trailing spaces (hard breaks). */
function clean(line: string): string {
  return line.replace(/ {2}$/, "");
}

/**
 * aider's yes/no prompts (`Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y`): the answer is logged as user
 * input. The whole line is the prompt's shape, question mark first, so a person's sentence that quotes it is not one.
 */
const CONFIRM =
  /^[^\n]{0,300}\? \(Y\)es\/\(N\)o(?:\/\([A-Z]\)[^/()[\]\n]{0,40})*[ \t]\[[^\]\n]{0,20}\]:[ \t]*\S{0,20}\s*$/;

const COMMIT = /^Commit ([0-9a-f]{7,40}) (.+)$/;
/** Lines aider itself writes at column 0 after a reply: they end the reply even when its last fence is open. */
const AIDER_LINE = /^> (?:Tokens: |Applied edit to |Commit [0-9a-f]{7}|Creating empty file |Did not apply edit)/;

function toolCalls(lines: string[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const l of lines) {
    const edits = textMarkers(l, "tool", "aider");
    for (const e of edits) calls.push({ name: "aider_edit", input: { file_path: e.path, op: e.op } });
    const m = COMMIT.exec(l);
    if (m) calls.push({ name: "git_commit", input: { sha: m[1], message: m[2]!.trim() } });
  }
  return calls;
}

export function parseAider(text: string): Transcript {
  const sink = new TurnSink("aider-md");
  // aider on Windows writes CRLF line ends.
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  // Fences are tracked per user turn and per block of aider's own output: either starts afresh.
  const mask: boolean[] = [];
  let from = 0;
  for (let i = 0; i <= lines.length; i++) {
    if (i === lines.length || (i > from && (lines[i]!.startsWith("#### ") || AIDER_LINE.test(lines[i]!)))) {
      mask.push(...fenceMask(lines.slice(from, i)));
      from = i;
    }
  }
  let cur: { kind: Kind; lines: string[] } | undefined;
  let session = 0;
  const flush = (): void => {
    if (!cur) return;
    const joined = cur.lines.join("\n").trim();
    if (cur.kind === "start") {
      // The launch banner can say aider created a file (`aider name` with a name that does not exist yet).
      sink.turn({ id: `s${session}`, role: "system", kind: "meta", text: joined, tool_calls: toolCalls(cur.lines) });
    } else if (cur.kind === "user") {
      // aider echoes a mode command's message on the next line (`/architect X`, then `X`) and writes empty
      // lines of multi-line input as `<blank>`.
      const seen = new Set<string>();
      const lines = cur.lines
        .filter((l) => l.trim() !== "<blank>")
        .filter((l) => {
          const k = l.replace(/^\/(ask|code|architect|context)\s+/, "").trim();
          if (k && seen.has(k)) return false;
          seen.add(k);
          return true;
        });
      const body = lines.join("\n").trim();
      const run = /^\/(run|test|lint)\s+([\s\S]+)$/.exec(body);
      const cmd = /^\/(\w+)\s*([\s\S]*)$/.exec(body);
      if (body && body.split("\n").every((l) => !l.trim() || CONFIRM.test(l)))
        sink.turn({ role: "user", kind: "meta", text: body });
      else if (run)
        sink.turn({ role: "user", text: body, tool_calls: [{ name: "shell", input: { command: run[2]!.trim() } }] });
      else if (cmd && ["ask", "code", "architect", "context", "help"].includes(cmd[1]!)) {
        // A bare mode switch (`/architect`) says nothing: the words are the message after it.
        sink.turn({ role: "user", ...(cmd[2]!.trim() ? { text: cmd[2]!.trim() } : { kind: "meta", text: body }) });
      } else if (cmd && !/\s/.test(cmd[1]!)) sink.turn({ role: "user", kind: "meta", text: body });
      else if (body) sink.turn({ role: "user", text: body });
    } else if (cur.kind === "tool") {
      const out = cur.lines.map((l) => l.replace(/^> ?/, ""));
      const calls = toolCalls(out);
      sink.turn({
        role: "tool",
        tool_calls: calls,
        tool_results: [{ name: "aider", output: out.join("\n").trim(), is_error: false }],
      });
    } else {
      // A reasoning model's scratchpad is logged inside the reply; the reply is what is left.
      const said = withoutReasoning(joined).trim();
      if (said) sink.turn({ role: "assistant", text: said });
      else if (joined) sink.ignore("reasoning_only");
    }
    cur = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = clean(lines[i]!);
    const k = kindOf(line, mask[i]!);
    if (k === "start") {
      flush();
      session++;
      cur = { kind: "start", lines: [line.slice(2)] };
      continue;
    }
    if (cur?.kind === "start") {
      // The banner's `> ` lines belong to the session start.
      if (k === "tool" || !line.trim()) {
        cur.lines.push(line.replace(/^> ?/, ""));
        continue;
      }
    }
    if (k === "user") {
      if (cur?.kind !== "user") flush();
      cur ??= { kind: "user", lines: [] };
      cur.lines.push(line.replace(/^#### ?/, ""));
      continue;
    }
    if (k === "tool") {
      if (cur?.kind !== "tool") flush();
      cur ??= { kind: "tool", lines: [] };
      cur.lines.push(line);
      continue;
    }
    if (!line.trim() && cur && cur.kind !== "assistant") continue;
    if (cur?.kind !== "assistant") flush();
    cur ??= { kind: "assistant", lines: [] };
    cur.lines.push(line);
  }
  flush();
  return sink.done();
}
