// The artifact ledger: which files the session changed and how, read from each format's own edit markers.
// Markers are tables: a tool name (with the field that holds the path), or a fixed line a client writes. A path
// mentioned in prose is never an edit, and read-only commands (cat, grep, git show/log/diff) never create one.
import type { ToolCall, ToolResult, Turn } from "../../conversation/schema.js";
import { redact } from "../../text/redact.js";
import { looksLikeFile, shellFiles as shellWrites, workingTreeReport } from "./shell.js";

export { looksLikeFile, workingTreeReport };

export interface FileEvent {
  path: string;
  op: string;
  turn: string;
}

export interface FileChange {
  path: string;
  op: string;
}

type OpOf = (input: Record<string, unknown>) => string;

/**
 * One row per edit tool family: the lower-cased tool names, the input fields that hold the path (`list[].field`
 * for a path inside each element of a list), the op.
 */
export interface ToolMarker {
  tools: string[];
  path: string[];
  op: string | OpOf;
  /** Who writes these calls. */
  source: string;
}

const editOp: OpOf = (input) => {
  if (typeof input.op === "string") return input.op;
  if (typeof input.old_string !== "string" && typeof input.oldString !== "string") return "edited";
  const before = firstLine(input.old_string ?? input.oldString, 50);
  const after = firstLine(input.new_string ?? input.newString, 50);
  // Previews whose first lines read the same say nothing the path does not.
  return before === after ? "edited" : `edited: \`${before}\` → \`${after}\``;
};
const multiOp: OpOf = (i) => {
  const edits = Array.isArray(i.edits) ? i.edits : i.replacements;
  return typeof i.op === "string" ? i.op : Array.isArray(edits) ? `edited (${edits.length} edits)` : "edited";
};
const writeOp: OpOf = (i) => (typeof i.op === "string" ? i.op : "written");

export const TOOL_MARKERS: ToolMarker[] = [
  { tools: ["edit", "notebookedit"], path: ["file_path", "notebook_path", "path"], op: editOp, source: "Claude Code" },
  { tools: ["multiedit"], path: ["file_path"], op: multiOp, source: "Claude Code" },
  { tools: ["write"], path: ["file_path", "path", "target_file"], op: writeOp, source: "Claude Code, Cursor" },
  { tools: ["replace", "smart_edit"], path: ["file_path", "path", "absolute_path"], op: editOp, source: "Gemini CLI" },
  {
    tools: ["write_file", "writefile"],
    path: ["file_path", "path", "absolute_path"],
    op: writeOp,
    source: "Gemini CLI",
  },
  {
    tools: ["edit_file", "edit_file_v2", "search_replace", "search_replace_v2", "reapply", "edit_notebook"],
    path: ["target_file", "relativeWorkspacePath", "file_path", "path", "target_notebook"],
    op: editOp,
    source: "Cursor",
  },
  { tools: ["strreplace"], path: ["file_path", "path"], op: editOp, source: "Cursor CLI" },
  { tools: ["multistrreplace"], path: ["file_path", "path"], op: multiOp, source: "Cursor CLI" },
  {
    tools: ["delete_file", "delete"],
    path: ["target_file", "relativeWorkspacePath", "file_path", "path"],
    op: "deleted",
    source: "Cursor",
  },
  {
    tools: ["replace_string_in_file", "insert_edit_into_file", "texteditgroup", "notebookeditgroup"],
    path: ["filePath", "file_path"],
    op: editOp,
    source: "VS Code Copilot",
  },
  {
    tools: ["copilot_replacestring", "copilot_insertedit", "copilot_editfile"],
    path: ["filePath", "file_path"],
    op: editOp,
    source: "VS Code Copilot",
  },
  {
    tools: ["multi_replace_string_in_file", "copilot_multireplacestring"],
    path: ["filePath", "replacements[].filePath"],
    op: multiOp,
    source: "VS Code Copilot",
  },
  {
    tools: ["create_file", "copilot_createfile"],
    path: ["filePath", "file_path", "path"],
    op: writeOp,
    source: "VS Code Copilot",
  },
  { tools: ["copilot_deletefile"], path: ["filePath"], op: "deleted", source: "VS Code Copilot" },
  {
    tools: ["write_to_file", "replace_in_file", "apply_diff", "insert_content", "search_and_replace"],
    path: ["path", "file_path"],
    op: (i) => (typeof i.content === "string" ? "written" : editOp(i)),
    source: "Cline, Roo Code",
  },
  {
    tools: ["str_replace", "insert", "create"],
    path: ["path", "file_path"],
    op: editOp,
    source: "Anthropic text editor, OpenHands",
  },
  {
    tools: ["aider_edit"],
    path: ["file_path"],
    op: (i) => (typeof i.op === "string" ? i.op : "applied edit"),
    source: "aider",
  },
];

const TOOL_ROW = new Map<string, ToolMarker>();
for (const row of TOOL_MARKERS) for (const t of row.tools) TOOL_ROW.set(t, row);

/** One row per fixed line a client writes about an edit: the pattern (group `path`, optional `op`) and the op. */
export interface TextMarker {
  pattern: RegExp;
  op: string | ((verb: string) => string);
  /** Where the line counts: `tool` inside a recorded tool call's block, `text` anywhere in a client's own markup. */
  scope: "tool" | "text";
  /** Only inside calls of these tools (lower-cased); any tool when absent. */
  tools?: RegExp;
  source: string;
}

const patchVerb = (v: string): string =>
  v === "Add" ? "added (patch)" : v === "Delete" ? "deleted (patch)" : "updated (patch)";

export const TEXT_MARKERS: TextMarker[] = [
  {
    pattern: /Edit file:\s*(?:<code>)?`?(?<path>[^<`\n]+?)`?(?:<\/code>)?\s*<\/summary>/g,
    op: "edited",
    scope: "text",
    source: "Cursor via SpecStory (`<details><summary>Edit file: PATH</summary>`)",
  },
  {
    pattern:
      /^(?:> \*\*\[copilot_(?:replaceString|multiReplaceString|insertEdit|applyPatch|editFile|editNotebook)\]\*\* )?(?:Replacing \d+ lines? with \d+ lines? in|Editing|Edited|Applying patch to|Inserting into) \[[^\]\n]*\]\((?<path>file:\/\/[^)#\s]+)/gm,
    op: "edited",
    scope: "text",
    source: "VS Code Copilot invocation line (`Replacing 3 lines with 5 lines in [](file:///…)`)",
  },
  {
    pattern: /^(?:> \*\*\[copilot_createFile\]\*\* )?(?:Created|Creating) \[[^\]\n]*\]\((?<path>file:\/\/[^)#\s]+)/gm,
    op: "created",
    scope: "text",
    source: "VS Code Copilot invocation line (`Created [](file:///…)`)",
  },
  {
    pattern: /^Edit: \*\*(?<path>[^*\n]+)\*\*\s*$/gm,
    op: "edited",
    scope: "tool",
    tools: /^(texteditgroup|notebookeditgroup)$/,
    source: "VS Code Copilot edit group via SpecStory",
  },
  {
    pattern: /^Tool use: \*\*(?<op>Write|Delete)\*\* `(?<path>[^`\n]+)`\s*$/gm,
    op: (v) => (v === "Delete" ? "deleted" : "written"),
    scope: "tool",
    source: "Cursor CLI via SpecStory",
  },
  {
    pattern: /^\*\*(?<op>Add|Modify|Update|Delete): `(?<path>[^`\n]+)`\*\*[ \t]*$/gm,
    op: patchVerb,
    scope: "tool",
    tools: /^apply_patch$/,
    source: "Codex CLI apply_patch via SpecStory",
  },
  {
    pattern: /^Path: `(?<path>[^`\n]+)`[ \t]*$/gm,
    op: "edited",
    scope: "tool",
    tools: /^(write_file|writefile|replace|smart_edit|edit)$/,
    source: "Gemini CLI via SpecStory (`Path:` after Edit/WriteFile)",
  },
  {
    pattern: /^The file (?<path>\S.*?) has been (?:updated|edited|modified)\b/gm,
    op: "edited",
    scope: "tool",
    source: "Claude Code result line",
  },
  {
    pattern: /^File created successfully at:? (?<path>\S.*?)(?= \(file state| \(|\s*$)/gm,
    op: "created",
    scope: "tool",
    source: "Claude Code result line",
  },
  {
    pattern: /^Applied \d+ edits? to (?<path>\S.*?):?[ \t]*$/gm,
    op: "edited",
    scope: "tool",
    tools: /^multiedit$/,
    source: "Claude Code MultiEdit result line",
  },
  {
    pattern:
      /^(?:Result: )?Successfully (?:modified file|overwrote file|created and wrote to new file): (?<path>\S.*?)(?: \(\d+ replacements?\))?\.?[ \t]*$/gm,
    op: "edited",
    scope: "tool",
    tools: /^(write_file|writefile|replace|smart_edit|edit)$/,
    source: "Gemini CLI result line",
  },
  {
    pattern: /^Applied edit to (?<path>\S.*?)[ \t]*$/gm,
    op: "applied edit",
    scope: "tool",
    tools: /^aider$/,
    source: "aider",
  },
  {
    pattern: /^Creating empty file (?<path>\S.*?)[ \t]*$/gm,
    op: "created",
    scope: "tool",
    tools: /^aider$/,
    source: "aider",
  },
];

/** `file:///c%3A/x/y.ts` → `c:/x/y.ts`; `file:///home/x` → `/home/x`. */
function fileUrlPath(url: string): string {
  let p = url.replace(/^file:\/\//, "");
  try {
    p = decodeURIComponent(p);
  } catch {
    // A stray `%` stays as written.
  }
  return /^\/[A-Za-z]:\//.test(p) ? p.slice(1) : p;
}

/** The edits named by client-written lines in `text`: `scope` says whose text it is, `tool` which call it belongs to. */
export function textMarkers(text: string, scope: "tool" | "text", tool = ""): FileChange[] {
  const out: FileChange[] = [];
  const name = tool.toLowerCase();
  // Marker lines are short; a huge line (a minified file, hostile padding) is content and is not scanned.
  const body = /[^\n]{2001}/.test(text) ? text.replace(/[^\n]{2001,}/g, "") : text;
  for (const row of TEXT_MARKERS) {
    if (row.scope !== scope) continue;
    if (row.tools && !row.tools.test(name)) continue;
    for (const m of body.matchAll(row.pattern)) {
      const raw = m.groups?.path?.trim();
      if (!raw) continue;
      const path = raw.startsWith("file://") ? fileUrlPath(raw) : raw;
      // One call, one file: a result line repeating the path its input named adds nothing.
      if (scope === "tool" && out.some((o) => o.path === path)) continue;
      out.push({ path, op: typeof row.op === "string" ? row.op : row.op(m.groups?.op ?? "") });
    }
  }
  return out;
}

function firstLine(s: unknown, max = 60): string {
  if (typeof s !== "string") return "";
  // Redact the whole line before cutting it: a cut credential URL no longer looks like one.
  const line = redact(
    s
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? "",
  );
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The path a `diff --git` block changes: its `+++`/`---` lines, else the header's two equal halves (spaces kept). */
function gitDiffPath(block: string): string | undefined {
  const plus = /^\+\+\+ (?:b\/)?(.+?)\t?$/m.exec(block)?.[1];
  if (plus && plus !== "/dev/null") return plus;
  const minus = /^--- (?:a\/)?(.+?)\t?$/m.exec(block)?.[1];
  if (minus && minus !== "/dev/null") return minus;
  const head = block.split("\n", 1)[0]!.trim();
  const rename = /^rename to (.+)$/m.exec(block)?.[1];
  if (rename) return rename;
  // `a/X b/X`: both halves name the same file, so the split is in the middle.
  const half = (head.length - 1) / 2;
  if (Number.isInteger(half) && head.startsWith("a/") && head.slice(half).startsWith(" b/")) {
    const a = head.slice(2, half);
    if (a === head.slice(half + 3)) return a;
  }
  return /^a\/(\S+) b\/(\S+)/.exec(head)?.[2];
}

/**
 * Files named by an apply_patch envelope (`*** Update File: path`, a `*** Move to:` renaming it) or a unified diff
 * (`diff --git a/x b/x`). A move changes both files: the source is gone, the destination written.
 */
export function patchFiles(patch: string): FileChange[] {
  const out: FileChange[] = [];
  let last: FileChange | undefined;
  for (const m of patch.matchAll(/^\*\*\* (?:(Add|Update|Modify|Delete) File|(Move to)): (.+)$/gm)) {
    const path = m[3]!.trim();
    if (m[2] && last) {
      const from = last.path;
      last.op = `moved to ${path} (patch)`;
      out.push({ path, op: `moved from ${from} (patch)` });
      last = undefined;
    } else if (m[2]) out.push({ path, op: "moved here (patch)" });
    else out.push((last = { path, op: patchVerb(m[1]!) }));
  }
  for (const b of patch.split(/^diff --git /m).slice(1)) {
    const path = gitDiffPath(b);
    if (!path) continue;
    const op = /^new file mode/m.test(b)
      ? "added (diff)"
      : /^deleted file mode/m.test(b)
        ? "deleted (diff)"
        : "changed (diff)";
    out.push({ path, op });
  }
  return out;
}

/** File changes a shell command makes that are visible from the command itself, apply_patch envelopes included. */
export function shellFiles(cmd: string): FileChange[] {
  const out = cmd.includes("*** Begin Patch") ? patchFiles(cmd) : [];
  out.push(...shellWrites(cmd));
  // Scratch files (logs, PR bodies) are not the session's work.
  return out.filter((c) => !/^(?:\/tmp|\/var\/tmp|\/private\/tmp|\/dev)\//.test(c.path));
}

/** A tool call's command as one string: Codex passes argv arrays (`["apply_patch", "*** Begin Patch…"]`). */
export function commandText(input: Record<string, unknown>): string {
  const c = input.command ?? input.cmd;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map(String).join("\n");
  return "";
}

/** Fields any tool may name its file by (for calls the table has no row for: SWE-agent's editor). */
const ANY_PATH = ["path", "file_path", "filePath"];

function pathOf(input: Record<string, unknown>, fields = ANY_PATH): string | undefined {
  for (const f of fields) {
    const v = input[f];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return undefined;
}

/** Every distinct path a row's fields name: the first plain field, else each element's `list[].field`. */
function rowPaths(input: Record<string, unknown>, fields: string[]): string[] {
  const plain = pathOf(
    input,
    fields.filter((f) => !f.includes("[]")),
  );
  if (plain) return [plain];
  const out: string[] = [];
  for (const f of fields) {
    const m = /^(\w+)\[\]\.(\w+)$/.exec(f);
    const list = m ? input[m[1]!] : undefined;
    if (!Array.isArray(list)) continue;
    for (const el of list) {
      const v = el && typeof el === "object" ? (el as Record<string, unknown>)[m![2]!] : undefined;
      if (typeof v === "string" && v.trim() && !out.includes(v.trim())) out.push(v.trim());
    }
  }
  return out;
}

/** What an editing call changed; undefined when the call is not an editor's (a shell command, read by `shellFiles`). */
function callEvents(call: ToolCall, openFile: string | undefined): FileChange[] | undefined {
  if (call.input.failed === true) return [];
  const name = call.name.toLowerCase();
  const input = call.input;
  // Parsers of markdown exports put what the client's own lines said the call changed here.
  if (Array.isArray(input.file_changes)) {
    return input.file_changes.filter(
      (c): c is FileChange =>
        typeof c === "object" &&
        c !== null &&
        typeof (c as FileChange).path === "string" &&
        (c as FileChange).path !== "",
    );
  }
  const path = pathOf(input);
  const command = commandText(input);
  if (name === "str_replace_editor" || name === "str_replace_based_edit_tool") {
    const sub = typeof input.command === "string" ? input.command.split(/\s+/)[0] : "";
    if (path && ["create", "str_replace", "insert", "undo_edit"].includes(sub ?? ""))
      return [{ path, op: sub === "create" ? "created" : editOp(input) }];
    const m = /^(create|str_replace|insert)\s+(\S+)/.exec(command);
    return m ? [{ path: m[2]!, op: m[1] === "create" ? "created" : "edited" }] : [];
  }
  if (typeof input.patch === "string") return patchFiles(input.patch);
  if (name === "apply_patch") return patchFiles(command || (typeof input.input === "string" ? input.input : ""));
  // SWE-agent commands act on the open file: `edit 12:14` (line range) or `edit <search> <replace>`.
  if (name === "edit" && !path && openFile) {
    const range = /^edit\s+(\d+:\d+)/.exec(command);
    if (range) return [{ path: openFile, op: `edited lines ${range[1]}` }];
    if (typeof input.search === "string") {
      return [
        { path: openFile, op: `edited: \`${firstLine(input.search, 50)}\` → \`${firstLine(input.replace, 50)}\`` },
      ];
    }
    if (command.startsWith("edit")) return [{ path: openFile, op: "edited" }];
  }
  if (name === "create" && !path && command) {
    const p = command.split(/\s+/)[1];
    return p ? [{ path: p.replace(/^["']|["']$/g, ""), op: "created" }] : [];
  }
  const row = TOOL_ROW.get(name);
  const found = row ? rowPaths(input, row.path) : [];
  if (row && found.length > 0) {
    const op = typeof row.op === "string" ? row.op : row.op(input);
    return found.map((path) => ({ path, op }));
  }
  if (name === "submit") return [];
  return undefined;
}

/**
 * One row per line a client writes instead of a tool's result when the call changed nothing, matched at the start
 * of the result. `never_ran`: the call was refused before it ran, so a shell command's writes did not happen either.
 */
export interface FailedMarker {
  pattern: RegExp;
  never_ran: boolean;
  source: string;
}

export const FAILED_MARKERS: FailedMarker[] = [
  { pattern: /^\s*<tool_use_error>/, never_ran: false, source: "Claude Code" },
  {
    pattern: /^\s*The user doesn't want to proceed with this tool use/,
    never_ran: true,
    source: "Claude Code (rejected call)",
  },
  {
    pattern: /^\s*Error: (?:String to replace|File has not been read|File does not exist)/,
    never_ran: false,
    source: "Claude Code exports",
  },
  { pattern: /^\s*\*\*Apply failed\*\*/, never_ran: false, source: "Cursor via SpecStory" },
  {
    pattern: /^\s*(?:apply_patch verification failed|Failed to apply patch)\b/i,
    never_ran: false,
    source: "Codex apply_patch",
  },
  { pattern: /^\s*(?:Error: )?Failed to edit\b/, never_ran: false, source: "Gemini CLI replace" },
  { pattern: /^\s*The user denied this operation/, never_ran: true, source: "Cline, Roo Code (denied call)" },
  {
    pattern: /^\s*Your proposed edit has introduced new syntax error/,
    never_ran: false,
    source: "SWE-agent edit (lint rejected it)",
  },
  { pattern: /^\s*No replacement was performed\b/, never_ran: false, source: "SWE-agent, OpenHands str_replace" },
];

/** A failed edit changed nothing: the client's error flag, or a failure line the client wrote instead of a result. */
function failed(r: ToolResult | undefined): boolean {
  if (!r) return false;
  return r.is_error || FAILED_MARKERS.some((m) => m.pattern.test(r.output));
}

/** A call refused before it ran: not even a shell command's first part happened. */
function refused(r: ToolResult | undefined): boolean {
  return r !== undefined && FAILED_MARKERS.some((m) => m.never_ran && m.pattern.test(r.output));
}

const GIT_STATUS_SHORT = /^\s?([MADRUC?]{1,2})\s+(?:"?[^"\n]+?"? -> )?"?([^"\n]+?)"?\s*$/;
const GIT_STATUS_LONG = /^\s+(modified|new file|deleted|renamed):\s+(?:.+ -> )?(.+?)\s*$/;
const GIT_STAT = /^\s*(\S.*?)\s+\|\s+(?:\d+|Bin)\b/;

/** Files a working-tree report (`git status`, `git diff --stat`/`--name-only` without revisions) names. */
export function gitReported(output: string): FileChange[] {
  const out: FileChange[] = [];
  for (const line of output.split("\n")) {
    if (line.length > 1000) continue;
    let m = GIT_STATUS_SHORT.exec(line);
    if (m && !m[2]!.endsWith("/")) {
      const code = m[1]!;
      out.push({
        path: m[2]!,
        op:
          code === "??" || code.includes("A")
            ? "added (git status)"
            : code.includes("D")
              ? "deleted (git status)"
              : "modified (git status)",
      });
    } else if ((m = GIT_STATUS_LONG.exec(line))) {
      const kind = m[1]!;
      out.push({
        path: m[2]!,
        op:
          kind === "new file"
            ? "added (git status)"
            : kind === "deleted"
              ? "deleted (git status)"
              : "modified (git status)",
      });
    } else if ((m = GIT_STAT.exec(line))) out.push({ path: m[1]!, op: "changed (git diff --stat)" });
  }
  return out.filter((c) => looksLikeFile(c.path) || c.path.startsWith(".../"));
}

/** Same file written `a\\b` and `a/b`, `./a` and `a`: one key. */
const fileKey = (p: string): string => p.replace(/\\/g, "/").replace(/^\.\//, "");
const isAbsolute = (p: string): boolean => /^(?:\/|[A-Za-z]:[\\/]|~\/)/.test(p);

/**
 * One spelling per file. An absolute path that ends with a relative path the session also used (the repository
 * root prefixed, as SWE-agent and aider print them) is that file; otherwise the first spelling seen stays. A bare
 * name takes the one full path the session gives it.
 */
function unifyPaths(events: FileEvent[], rooted: ReadonlySet<string> = new Set()): FileEvent[] {
  const relative = new Map<string, string>();
  for (const e of events)
    if (!isAbsolute(e.path)) relative.set(fileKey(e.path), relative.get(fileKey(e.path)) ?? e.path);
  const spelling = new Map<string, string>();
  const unified = events.map((e) => {
    let k = fileKey(e.path);
    if (isAbsolute(e.path)) {
      let best: string | undefined;
      for (const r of relative.keys()) if (k.endsWith(`/${r}`) && (!best || r.length > best.length)) best = r;
      if (best) k = best;
    }
    const first = spelling.get(k) ?? relative.get(k) ?? e.path;
    spelling.set(k, first);
    return first === e.path ? e : { ...e, path: first };
  });
  // A bare file name (`api.ts`) where the session names that file once with its folders (`src/lib/api.ts`) is
  // that file; not when two folders hold a file of that name, not a file that usually sits at the root, and not a
  // name from a client that writes every path from the repository root (aider): that is the root file.
  const byName = new Map<string, Set<string>>();
  for (const e of unified) {
    const key = fileKey(e.path);
    if (key.includes("/")) byName.set(baseName(key), (byName.get(baseName(key)) ?? new Set()).add(e.path));
  }
  return unified.map((e) => {
    const key = fileKey(e.path);
    const homes = byName.get(key);
    if (key.includes("/") || ROOT_FILES.test(key) || rooted.has(key) || !homes || homes.size !== 1) return e;
    return { ...e, path: [...homes][0]! };
  });
}

const baseName = (key: string): string => key.slice(key.lastIndexOf("/") + 1);
/** Files that usually sit at a project's root as well as in its packages: a bare name is the root one. */
const ROOT_FILES =
  /^(?:package(?:-lock)?\.json|tsconfig(?:\.\w+)?\.json|README(?:\.\w+)?|\.env(?:\.\w+)?|\.gitignore|Makefile|Dockerfile|docker-compose\.ya?ml|requirements(?:[\w.-]*)\.txt|pyproject\.toml|setup\.py|Cargo\.toml|go\.mod|pnpm-lock\.yaml|yarn\.lock|LICENSE(?:\.\w+)?|CHANGELOG(?:\.\w+)?)$/i;

/**
 * Every file change of these turns, in order. Tracks SWE-agent's open file across turns. A call whose result is
 * an error changed nothing. When the transcript records no edit call at all (exports that drop patches), what a
 * working-tree report (`git status`, `git diff --stat`) names is the only evidence of the session's edits.
 */
export function fileEvents(turns: Turn[]): FileEvent[] {
  const out: FileEvent[] = [];
  const git: FileEvent[] = [];
  // Paths as a client that names files from the repository root wrote them (aider's `Applied edit to`).
  const rooted = new Set<string>();
  let edited = false;
  const results = new Map<string, ToolResult>();
  for (const t of turns) for (const r of t.tool_results) if (r.call_id) results.set(r.call_id, r);
  // Exports without call ids put a lone call's result in its own turn (Codex's markdown, aider) or in the next
  // turn (SWE-agent trajectories).
  const unlinked = new Map<ToolCall, ToolResult>();
  turns.forEach((t, k) => {
    const c = t.tool_calls.length === 1 && !t.tool_calls[0]!.id ? t.tool_calls[0]! : undefined;
    const rs =
      t.tool_results.length > 0
        ? t.tool_results
        : (turns[k + 1]?.tool_calls.length ?? 1) === 0
          ? turns[k + 1]!.tool_results
          : [];
    if (c && rs.length === 1 && !rs[0]!.call_id) unlinked.set(c, rs[0]!);
  });
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
      const result = c.id ? results.get(c.id) : unlinked.get(c);
      const edits = callEvents(c, openFile);
      const events = edits ?? (cmd ? shellFiles(cmd) : []);
      // A shell command's writes stand even when a later part of it failed; an edit tool's error means no edit.
      const shell = edits === undefined && events.length > 0 && !cmd.includes("*** Begin Patch");
      // A reader that saw the client confirm the save marks the call `applied`: an error flag on its result is then
      // about the saved file (the editor's diagnostics), not about the edit.
      if (events.length > 0 && c.input.applied !== true && failed(result) && !shell) continue;
      if (shell && refused(result)) continue;
      if (events.length > 0 && !shell) edited = true;
      for (const e of events) out.push({ path: e.path, op: redact(e.op), turn: t.id });
      if (edits && TOOL_ROW.get(c.name)?.source === "aider") for (const e of edits) rooted.add(fileKey(e.path));
      if (cmd && workingTreeReport(cmd)) {
        const outputs = result ? [result] : t.tool_results;
        for (const r of outputs) for (const e of gitReported(r.output)) git.push({ ...e, turn: t.id });
      }
    }
  }
  return unifyPaths(edited ? out : [...out, ...resolveElided(git)], rooted);
}

/** `git diff --stat` shortens long paths to `.../tail`: the full path another report named, else dropped. */
function resolveElided(events: FileEvent[]): FileEvent[] {
  const full = events.filter((e) => !e.path.startsWith(".../")).map((e) => e.path);
  const out: FileEvent[] = [];
  for (const e of events) {
    if (!e.path.startsWith(".../")) {
      out.push(e);
      continue;
    }
    const tail = e.path.slice(3);
    const hit = full.find((p) => p.endsWith(tail));
    if (hit) out.push({ ...e, path: hit });
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
