// The artifact ledger: which files the session changed and how, from real edit/write tool calls and patches.
import type { ToolCall, Turn } from "../conversation/schema.js";

export interface FileEvent {
  path: string;
  op: string;
  turn: string;
}

const EDIT_TOOLS = new Set([
  "edit",
  "multiedit",
  "str_replace",
  "replace",
  "edit_file",
  "apply_diff",
  "notebookedit",
  "aider_edit",
  "search_replace",
  "insert",
]);
const WRITE_TOOLS = new Set(["write", "write_file", "create", "create_file", "writefile"]);

function firstLine(s: unknown, max = 60): string {
  if (typeof s !== "string") return "";
  const line =
    s
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Files named by an apply_patch envelope (`*** Update File: path`) or a unified diff (`diff --git a/x b/x`). */
export function patchFiles(patch: string): { path: string; op: string }[] {
  const out: { path: string; op: string }[] = [];
  for (const m of patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)) {
    out.push({
      path: m[2]!.trim(),
      op: m[1] === "Add" ? "added (patch)" : m[1] === "Delete" ? "deleted (patch)" : "updated (patch)",
    });
  }
  for (const m of patch.matchAll(/^\*\*\* Move to: (.+)$/gm))
    out.push({ path: m[1]!.trim(), op: "moved here (patch)" });
  for (const m of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)/gm)) {
    const block = patch.slice(m.index);
    const isNew = /^new file mode/m.test(block.split(/^diff --git /m)[1] ?? "");
    out.push({ path: m[2]!, op: isNew ? "added (diff)" : "changed (diff)" });
  }
  return out;
}

/** File changes a shell command makes that are visible from the command itself. */
export function shellFiles(cmd: string): { path: string; op: string }[] {
  const out: { path: string; op: string }[] = [];
  if (cmd.includes("*** Begin Patch")) out.push(...patchFiles(cmd));
  for (const m of cmd.matchAll(
    /\bsed\s+-i(?:\s+'[^']*'|\s+"[^"]*"|\s+\S+)*?\s+((?:[\w./-]+\/)?[\w.-]+\.\w+)\s*(?:$|[;&|])/gm,
  )) {
    out.push({ path: m[1]!, op: "edited (sed -i)" });
  }
  for (const m of cmd.matchAll(/\bgit\s+mv\s+(\S+)\s+(\S+)/g)) out.push({ path: m[2]!, op: `moved from ${m[1]}` });
  for (const m of cmd.matchAll(/(?:^|[;&|]\s*)(?:git\s+)?rm\s+(?:-\w+\s+)*((?:[\w./-]+\/)?[\w.-]+\.\w+)/gm)) {
    out.push({ path: m[1]!, op: "deleted" });
  }
  for (const m of cmd.matchAll(/\bgit\s+add\s+([^;&|\n]+)/g)) {
    for (const a of m[1]!.split(/\s+/))
      if (a && !a.startsWith("-") && a !== "." && /\.\w+$/.test(a)) out.push({ path: a, op: "staged (git add)" });
  }
  for (const m of cmd.matchAll(/\bcat\s*>{1,2}\s*((?:[\w./-]+\/)?[\w.-]+\.\w+)\s*<</g))
    out.push({ path: m[1]!, op: "written (heredoc)" });
  return out;
}

/** A tool call's command as one string: Codex passes argv arrays (`["apply_patch", "*** Begin Patch…"]`). */
export function commandText(input: Record<string, unknown>): string {
  const c = input.command ?? input.cmd;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map(String).join("\n");
  return "";
}

function callEvents(call: ToolCall, openFile: string | undefined): { path: string; op: string }[] {
  if (call.input.failed === true) return [];
  const name = call.name.toLowerCase();
  const input = call.input;
  const path =
    (typeof input.file_path === "string" && input.file_path) ||
    (typeof input.path === "string" && input.path) ||
    (typeof input.notebook_path === "string" && input.notebook_path) ||
    (typeof input.filename === "string" && input.filename) ||
    undefined;
  const command = commandText(input);
  if (name === "str_replace_editor" || name === "str_replace_based_edit_tool") {
    const sub = command.split(/\s+/)[0] ?? "";
    if (path && ["create", "str_replace", "insert", "undo_edit"].includes(sub))
      return [{ path, op: sub === "create" ? "created" : "edited" }];
    const m = /^(create|str_replace|insert)\s+(\S+)/.exec(command);
    return m ? [{ path: m[2]!, op: m[1] === "create" ? "created" : "edited" }] : [];
  }
  if (typeof input.patch === "string") return patchFiles(input.patch);
  if (name === "apply_patch") return patchFiles(command || (typeof input.input === "string" ? input.input : ""));
  if (EDIT_TOOLS.has(name) && path) {
    const op =
      typeof input.op === "string"
        ? input.op
        : typeof input.old_string === "string"
          ? `edited: \`${firstLine(input.old_string, 50)}\` → \`${firstLine(input.new_string, 50)}\``
          : Array.isArray(input.edits)
            ? `edited (${input.edits.length} edits)`
            : "edited";
    return [{ path, op }];
  }
  if (WRITE_TOOLS.has(name) && path) return [{ path, op: "written" }];
  // SWE-agent commands act on the open file: `edit 12:14` (line range) or `edit <search> <replace>`.
  if (name === "edit" && openFile) {
    const range = /^edit\s+(\d+:\d+)/.exec(command);
    if (range) return [{ path: openFile, op: `edited lines ${range[1]}` }];
    if (typeof input.search === "string") {
      return [
        { path: openFile, op: `edited: \`${firstLine(input.search, 50)}\` → \`${firstLine(input.replace, 50)}\`` },
      ];
    }
    if (command.startsWith("edit")) return [{ path: openFile, op: "edited" }];
  }
  if (name === "create" && command) {
    const p = command.split(/\s+/)[1];
    return p ? [{ path: p.replace(/^["']|["']$/g, ""), op: "created" }] : [];
  }
  if (name === "submit") return [];
  if (command) return shellFiles(command);
  return [];
}

const GIT_STATUS = /^\s?([MADRU?]{1,2})\s+(?:\S+ -> )?(\S+\.\w+)\s*$/;
const GIT_STAT = /^\s*(\S+\.\w+)\s+\|\s+\d+/;

/** Files named in `git status --short`, `git diff --stat` or commit summaries. */
export function gitReported(output: string): { path: string; op: string }[] {
  const out: { path: string; op: string }[] = [];
  for (const line of output.split("\n")) {
    let m = GIT_STATUS.exec(line);
    if (m) {
      const code = m[1]!.trim();
      out.push({
        path: m[2]!,
        op:
          code === "??" || code.includes("A")
            ? "added (git status)"
            : code.includes("D")
              ? "deleted (git status)"
              : "modified (git status)",
      });
    } else if ((m = GIT_STAT.exec(line))) out.push({ path: m[1]!, op: "changed (git diff --stat)" });
  }
  return out;
}

/** Every file change of these turns, in order. Tracks SWE-agent's open file across turns. */
export function fileEvents(turns: Turn[]): FileEvent[] {
  const out: FileEvent[] = [];
  let openFile: string | undefined;
  for (const t of turns) {
    for (const r of t.tool_results) {
      const m = /\(Open file: ([^)\n]+)\)/.exec(r.output);
      if (m && m[1] !== "n/a") openFile = m[1]!.trim();
    }
    for (const c of t.tool_calls) {
      const cmd = commandText(c.input);
      if ((c.name === "open" || c.name === "create") && cmd) {
        const p = cmd.split(/\s+/)[1];
        if (p) openFile = p.replace(/^["']|["']$/g, "");
      }
      for (const e of callEvents(c, openFile)) out.push({ ...e, turn: t.id });
      // What git reports as changed is an edit even when the edit itself was not recorded (exports drop patches).
      if (/\bgit\s+(status|diff\s+--stat|show\s+--stat|commit)\b/.test(cmd)) {
        for (const r of t.tool_results) for (const e of gitReported(r.output)) out.push({ ...e, turn: t.id });
      }
    }
  }
  return out;
}

/** Shortens absolute paths to the session's working directory when they are inside it. */
export function displayPath(path: string, cwd: string | undefined): string {
  let p = path.replace(/^file:\/\//, "");
  if (cwd) {
    const base = cwd.endsWith("/") || cwd.endsWith("\\") ? cwd : `${cwd}/`;
    if (p.startsWith(base)) p = p.slice(base.length);
  }
  return p;
}
