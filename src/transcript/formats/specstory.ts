// SpecStory markdown exports (Cursor, VS Code Copilot, Claude Code, Gemini CLI, Codex): old and new styles.
import type { ToolCall, ToolResult } from "../../conversation/schema.js";
import { looksLikeFile, textMarkers } from "../events/ledger.js";
import { type Fenced, fencedBlocks, splitAtHeaders } from "../rendering/markdown.js";
import type { Transcript } from "../schema.js";
import { TurnSink } from "./turns.js";

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
const SUMMARY = /<summary>([\s\S]*?)<\/summary>/;
const INLINE_CMD = /^`([^`\n]+)`\s*$/m;
const SHELL_LANG = /^(bash|sh|shell|zsh|console|powershell|pwsh|cmd)$/;
const ERROR_OUT =
  /(^|\n)\s*(Error(?!: \(none\))|error:|<tool_use_error>|Traceback|Exit [Cc]ode:? [1-9]|Process exited with code [1-9])/;

/** Copilot's `**Input:**` list: `- key: \`value\`` or `- key:` followed by a fenced value. */
function inputList(body: string, input: Record<string, unknown>): void {
  const at = body.search(/^\*\*Input:\*\*\s*$/m);
  if (at < 0) return;
  const lines = body.slice(at).split("\n");
  const fences = fencedBlocks(lines.join("\n"));
  for (let i = 1; i < lines.length; i++) {
    const inline = /^- ([A-Za-z_]\w*): `(.*)`\s*$/.exec(lines[i]!);
    if (inline) {
      input[inline[1]!] ??= inline[2]!;
      continue;
    }
    const block = /^- ([A-Za-z_]\w*):\s*$/.exec(lines[i]!);
    if (block) {
      const f = fences.find((x) => x.start > i && x.start <= i + 2);
      if (f) {
        input[block[1]!] ??= f.body;
        i = f.end;
      }
    }
  }
}

/** The `filePath` of each replacement: a JSON list (`[{"filePath": …}]`) or a rendered one (`[map[filePath:… …]]`). */
function replacementPaths(v: unknown): string[] {
  if (typeof v !== "string") return [];
  const out: string[] = [];
  if (/^\s*\[\s*\{/.test(v)) {
    try {
      const list: unknown = JSON.parse(v);
      if (Array.isArray(list))
        for (const el of list) {
          const p = (el as Record<string, unknown> | null)?.filePath;
          if (typeof p === "string" && p.trim() && !out.includes(p.trim())) out.push(p.trim());
        }
      return out;
    } catch {
      // Not JSON after all: read it as the rendered form.
    }
  }
  for (const m of v.matchAll(/filePath:(.+?)(?= (?:newString|oldString|explanation|filePath):|\]|$)/gm)) {
    const p = m[1]!.trim();
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}

function toolUse(attrs: string, inner: string, id: string): { call: ToolCall; result?: ToolResult } {
  const a: Record<string, string> = {};
  for (const m of attrs.matchAll(ATTR)) a[m[1]!] = m[2]!;
  const name = a.name || "tool";
  const summaryTag = SUMMARY.exec(inner)?.[0] ?? "";
  const summary = SUMMARY.exec(inner)?.[1] ?? "";
  const body = inner.replace(SUMMARY, "");
  const fences = fencedBlocks(body);
  const outFence = fences.length > 0 ? fences[fences.length - 1] : undefined;
  const input: Record<string, unknown> = { type: a.type ?? "unknown" };
  inputList(body, input);
  // The command: in the summary (`Tool use: **exec_command** \`cmd\``, `• Run command: cmd`), on its own line, or
  // in the first fence of a shell call whose last fence is the output.
  const shell = a.type === "shell" || /shell|terminal|bash|exec_command|run_command/i.test(name);
  const sumCmd =
    /\*\*\s+`([^`\n]+)`\s*$/.exec(summary)?.[1] ?? /• Run command: (.+)$/.exec(summary.trim())?.[1]?.trim();
  const lineCmd = INLINE_CMD.exec(body)?.[1];
  if (typeof input.command !== "string") {
    const first = fences[0];
    const fenced = shell && first && (fences.length > 1 || SHELL_LANG.test(first.lang)) ? first.body : undefined;
    const cmd = shell ? (sumCmd ?? lineCmd ?? fenced) : lineCmd;
    if (cmd) input.command = cmd;
  }
  // What the client's own lines say this call changed: scanned outside the content it wrote (the output fence
  // stays: result lines live there).
  const scanned = fences
    .filter((f) => f !== outFence)
    .reduceRight((t, f) => {
      const ls = t.split("\n");
      return [...ls.slice(0, f.start), ...ls.slice(f.end + 1)].join("\n");
    }, body);
  const changes = [...textMarkers(summaryTag, "text"), ...textMarkers(`${summary}\n${scanned}`, "tool", name)];
  for (const p of replacementPaths(input.replacements)) changes.push({ path: p, op: "edited" });
  if (changes.length > 0) input.file_changes = changes;
  else if (a.type === "read") {
    const p = /\*\*\s+`([^`\n]+)`\s*$/.exec(summary)?.[1] ?? /Read file: (.+)$/.exec(summary.trim())?.[1];
    if (p) input.file_path = p.trim();
  }
  if (fences.length > 1 && a.type === "write") input.content = fences[0]!.body;
  // A question put to the person (`AskUserQuestion`): the question in bold, the options, and `**Answer:** …`.
  const answer = /^\*\*Answer:\*\*\s*(.+)$/m.exec(body)?.[1]?.trim();
  if (answer) {
    input.answer = answer;
    const question = /^\*\*(.{3,400}?)\*\*\s*$/m.exec(body)?.[1]?.trim();
    if (question) input.question = question;
  }
  const output = outFence && (fences.length > 1 || !shell || sumCmd || lineCmd) ? outFence.body : "";
  const failedEdit = /<tool_use_error>|\*\*Apply failed\*\*|^Status: \*\*(?:error|cancelled|rejected)\*\*/m.test(body);
  return {
    call: { id, name, input },
    ...(outFence || failedEdit
      ? {
          result: {
            call_id: id,
            name,
            output,
            is_error: failedEdit || (changes.length === 0 && ERROR_OUT.test(output)),
          },
        }
      : {}),
  };
}

/** A path a diff names in its first lines: `--- a/x`, `+++ b/x`, or a leading `# ./x` / `// x` comment. */
function diffHeadPath(body: string): string | undefined {
  for (const line of body.split("\n").slice(0, 3)) {
    const m =
      /^(?:---|\+\+\+) (?:[ab]\/)?(\S+)/.exec(line) ??
      /^[ +-]?\s*(?:#|\/\/|<!--|--)\s*((?:\.{0,2}\/)?[\w./\\-]+)\s*(?:-->)?\s*$/.exec(line);
    if (m && m[1] !== "/dev/null" && looksLikeFile(m[1]!)) return m[1]!;
  }
  return undefined;
}

/** A diff that writes a whole new file: every line added, none kept or removed. */
function wholeNewFile(diff: string): boolean {
  const lines = diff.split("\n").filter((l) => l.trim());
  return (
    lines.length >= 3 &&
    lines.some((l) => l.startsWith("+")) &&
    !lines.some((l) => (l.startsWith("-") || l.startsWith(" ")) && l.slice(1).trim())
  );
}

/**
 * A capitalized name ending `.js` written as a plain word, not as code (`Node.js`, `Vue.js`, `Chart.js`): in prose
 * that is a runtime or a library, not a file of the project.
 */
const PRODUCT = /^\p{Lu}[\p{L}\d]*\.js$/u;

/** The one file a sentence introducing a diff names (`Now let's fix the main.py file:`); none when it names two. */
function proseFile(sentence: string): string | undefined {
  const names = new Set<string>();
  for (const m of sentence.matchAll(/(?:^|[\s`'"(])((?:[\w.-]+[/\\])*[\w.-]+\.\w{1,10})(?=[\s`'"),:;!?]|\.?$)/g))
    if (looksLikeFile(m[1]!) && !/^\d/.test(m[1]!) && !(PRODUCT.test(m[1]!) && !m[0].startsWith("`"))) names.add(m[1]!);
  return names.size === 1 ? [...names][0] : undefined;
}

/** The script a shell block right after a diff runs first (`python -u x.py`): the file the diff just wrote. */
function scriptRun(next: Fenced | undefined): string | undefined {
  if (!next || !SHELL_LANG.test(next.lang)) return undefined;
  const run =
    /(?:^|&&\s*|;\s*)(?:python3?|node|bash|sh|ruby|tsx|ts-node|deno run|bun)\s+(?:-\w+\s+)*([\w./-]+\.\w+)/.exec(
      next.body.trim().split("\n")[0] ?? "",
    );
  return run && looksLikeFile(run[1]!) ? run[1] : undefined;
}

interface OldStyle {
  calls: ToolCall[];
  /** What a command printed, from the unlabelled block after it. */
  results: ToolResult[];
  /** Line ranges of the body that are a command and its output: calls, not the reply's words. */
  shown: [number, number][];
}

/**
 * Old-style blocks (no `<tool-use>` markup): `Read file: X`, `<details><summary>Edit file: X</summary>` edits,
 * ```diff edits of the file their header names (else of the file this reply last read), ```bash commands, and
 * Copilot's `### [file](file://…)` followed by the file's new content.
 */
function oldStyleCalls(body: string, n: { next: number }): OldStyle {
  const calls: ToolCall[] = [];
  const results: ToolResult[] = [];
  const shown: [number, number][] = [];
  const lines = body.split("\n");
  let lastRead: string | undefined;
  let segments = 0;
  let inEdit = false;
  let copilot: string | undefined;
  let lastProse = "";
  const fences = fencedBlocks(body);
  let f = 0;
  for (let i = 0; i < lines.length; i++) {
    const fence = fences[f];
    if (fence && fence.start === i) {
      f++;
      if (copilot) {
        calls.push({ id: `s${n.next++}`, name: "Edit", input: { file_path: copilot, op: "edited" } });
        copilot = undefined;
      } else if (fence.lang === "diff" && !inEdit) {
        // The file its header or its introducing sentence names; a whole new file is not the file just read: it is
        // the script run next, if any.
        const path =
          diffHeadPath(fence.body) ??
          proseFile(lastProse) ??
          (wholeNewFile(fence.body) ? scriptRun(fences[f]) : lastRead);
        lastRead = undefined;
        const added = fence.body.split("\n").filter((l) => l.startsWith("+")).length;
        const removed = fence.body.split("\n").filter((l) => l.startsWith("-")).length;
        if (path)
          calls.push({
            id: `s${n.next++}`,
            name: "Edit",
            input: { file_path: path, op: `diff +${added}/-${removed}` },
          });
      } else if (SHELL_LANG.test(fence.lang) && !inEdit) {
        const id = `s${n.next++}`;
        calls.push({ id, name: "Bash", input: { command: fence.body.trim() } });
        lastProse = "";
        // The unlabelled block right after a command is what it printed: the call's result, not the reply's words.
        const out = fences[f];
        const between = out ? lines.slice(fence.end + 1, out.start) : [];
        if (out && out.lang === "" && between.length <= 3 && between.every((l) => !l.trim())) {
          const output = out.body.trim();
          results.push({ name: "Bash", call_id: id, output, is_error: ERROR_OUT.test(output) });
          shown.push([fence.start, out.end]);
          f++;
          i = out.end;
          continue;
        }
      }
      i = fence.end;
      continue;
    }
    const line = lines[i]!;
    const edits = textMarkers(line, "text");
    if (edits.length > 0) {
      calls.push({ id: `s${n.next++}`, name: "edit_file", input: { file_changes: edits } });
      inEdit = true;
      continue;
    }
    if (inEdit && /<\/details>/.test(line)) inEdit = false;
    // A read says which file the next diff edits only while the reply is still about it: one segment of prose.
    if (/^\s*-{3,}\s*$/.test(line) && lastRead && ++segments > 2) lastRead = undefined;
    const read = /^Read file:\s*(.+)$/.exec(line);
    if (read) {
      lastRead = read[1]!.trim();
      segments = 0;
      calls.push({ id: `s${n.next++}`, name: "Read", input: { file_path: lastRead } });
      continue;
    }
    if (line.trim() && !/^\s*-{3,}\s*$|^\s*<\/?(?:details|summary)\b/.test(line)) lastProse = line;
    const link = /^#{2,4}\s*\[([^\]]+)\]\((?:file:\/\/)?([^)]+)\)\s*$/.exec(line);
    if (link) {
      copilot = decodeURIComponent(link[2]!);
      continue;
    }
    // Copilot's file header counts only when the file's content follows it.
    if (copilot && (/^#{1,4}\s/.test(line) || /^\s*-{3,}\s*$/.test(line))) copilot = undefined;
  }
  return { calls, results, shown };
}

/** `body` without the line ranges given (inclusive). */
function withoutLines(body: string, ranges: [number, number][]): string {
  if (ranges.length === 0) return body;
  const lines = body.split("\n");
  for (const [from, to] of ranges) for (let i = from; i <= to && i < lines.length; i++) lines[i] = "\u0000";
  return lines.filter((l) => l !== "\u0000").join("\n");
}

export function parseSpecStory(raw: string): Transcript {
  const text = raw.replace(/\r\n?/g, "\n");
  const sink = new TurnSink("specstory-md");
  sink.title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
  // A file with `<tool-use>` markup records every call that way: code blocks in its replies are prose, not calls.
  const tagged = /<tool-use\b/.test(text);
  const n = { next: 0 };
  const sections = splitAtHeaders(text, header);
  for (const s of sections) {
    if (!s.header) {
      if (s.body.trim()) sink.ignore("preamble");
      continue;
    }
    const h = s.header;
    // `<no message>` is the export's placeholder for a step that said nothing.
    let body = s.body
      .replace(/\n-{3,}\s*$/g, "")
      .replace(THINK, "")
      .replace(/^[ \t]*<no message>[ \t]*$/gm, "");
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
    if (tagged) {
      body = body.replace(TOOL_USE, (_all, attrs: string, inner: string) => {
        const t = toolUse(attrs, inner, `s${n.next++}`);
        calls.push(t.call);
        if (t.result) results.push(t.result);
        return "";
      });
      // Edit details outside the tool markup are still the client's own lines.
      const loose = textMarkers(body, "text");
      if (loose.length > 0) calls.push({ id: `s${n.next++}`, name: "edit_file", input: { file_changes: loose } });
    } else {
      const old = oldStyleCalls(body, n);
      calls.push(...old.calls);
      results.push(...old.results);
      body = withoutLines(body, old.shown);
    }
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
