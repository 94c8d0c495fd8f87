// What a request's edits did, read from the events themselves: the definitions (functions, classes, methods,
// sections) each edit added, changed or removed, from the edit call's old and new text, a written file's content, a
// diff or an aider SEARCH/REPLACE block in the agent's message; and the agent's own one-line statement of the change.
// A change unit says this when the request alone says nothing of the work ("go ahead", "continue").
import type { ToolCall, Turn } from "../conversation/schema.js";
import { lineSentences } from "./events.js";

/** The longest statement of the agent's taken as its account of a change; a longer one is never cut, only left out. */
const MAX_STATEMENT = 200;
/** The fewest words a statement needs to say what changed. */
const MIN_STATEMENT_WORDS = 5;
/** Names of definitions said per change; the rest are counted. */
const MAX_NAMES = 6;

/** One edit's text before and after (before is empty for a file written whole), with the file it is in. */
export interface Hunk {
  path: string;
  before: string;
  after: string;
  /** The file was written whole: what it defines is what it has, not what the edit added. */
  whole: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const pathOf = (i: Record<string, unknown>): string | undefined =>
  str(i.file_path) ??
  str(i.filePath) ??
  str(i.path) ??
  str(i.target_file) ??
  str(i.TargetFile) ??
  str(i.absolute_path) ??
  str(i.notebook_path);

/** The old and new text of one edit's input, in the field names edit tools use. */
function pairOf(i: Record<string, unknown>): { before: string; after: string } | undefined {
  const before = str(i.old_string) ?? str(i.oldString) ?? str(i.old_str) ?? str(i.TargetContent) ?? str(i.search);
  const after = str(i.new_string) ?? str(i.newString) ?? str(i.new_str) ?? str(i.ReplacementContent) ?? str(i.replace);
  return before !== undefined && after !== undefined ? { before, after } : undefined;
}

/** The hunks of one tool call: an old/new pair, a list of them, or a file's whole content. */
function callHunks(c: ToolCall): Hunk[] {
  const i = c.input;
  const path = pathOf(i);
  const out: Hunk[] = [];
  const pair = pairOf(i);
  if (path && pair) out.push({ path, ...pair, whole: false });
  for (const list of [i.edits, i.replacements, i.ReplacementChunks]) {
    if (!Array.isArray(list)) continue;
    for (const e of list) {
      if (typeof e !== "object" || e === null) continue;
      const p = pairOf(e as Record<string, unknown>);
      const at = pathOf(e as Record<string, unknown>) ?? path;
      if (p && at) out.push({ path: at, ...p, whole: false });
    }
  }
  const content = str(i.content) ?? str(i.CodeContent) ?? str(i.file_text);
  if (path && content !== undefined && !pair) out.push({ path, before: "", after: content, whole: true });
  return out;
}

/** aider's SEARCH/REPLACE block, after the line that names its file. */
const SEARCH_REPLACE = /^([^\n`]+)\n```[^\n]*\n<{5,9} SEARCH\n([\s\S]*?)\n={5,9}\n([\s\S]*?)\n>{5,9} REPLACE/gm;
/** A fenced diff block. */
const DIFF_BLOCK = /```diff\n([\s\S]*?)```/g;

/** The hunks an agent's message shows: aider's SEARCH/REPLACE blocks and diff blocks (one side per sign). */
function textHunks(text: string): Hunk[] {
  const out: Hunk[] = [];
  if (text.includes("SEARCH"))
    for (const m of text.matchAll(SEARCH_REPLACE))
      out.push({ path: m[1]!.trim(), before: m[2]!, after: m[3]!, whole: false });
  if (text.includes("```diff"))
    for (const m of text.matchAll(DIFF_BLOCK)) {
      const before: string[] = [];
      const after: string[] = [];
      let path = "";
      for (const line of m[1]!.split("\n")) {
        const file = /^(?:\+\+\+|---) (?:[ab]\/)?(\S+)/.exec(line) ?? /^\s*#\s*(\S+\.\w+)\s*$/.exec(line);
        if (file && !path) path = file[1]!;
        if (/^(?:\+\+\+|---|@@)/.test(line)) continue;
        const sign = line.trimStart()[0];
        const body = line.trimStart().slice(1);
        if (sign === "+") after.push(body);
        else if (sign === "-") before.push(body);
        else {
          before.push(line);
          after.push(line);
        }
      }
      out.push({ path, before: before.join("\n"), after: after.join("\n"), whole: false });
    }
  return out;
}

/** A definition a line opens, with its kind: what an edit can add, change or remove by name. */
const DEFINITIONS: { kind: string; re: RegExp }[] = [
  {
    kind: "class",
    re: /^\s*(?:export\s+)?(?:default\s+)?(?:public\s+|internal\s+|abstract\s+|sealed\s+|static\s+|partial\s+|data\s+)*class\s+([A-Za-z_]\w*)/,
  },
  { kind: "interface", re: /^\s*(?:export\s+)?(?:public\s+|internal\s+)?interface\s+([A-Za-z_]\w*)/ },
  { kind: "type", re: /^\s*(?:export\s+)?(?:type|enum|struct|trait|record)\s+([A-Za-z_]\w*)/ },
  {
    kind: "function",
    re: /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:def|function\*?|func|fn|pub\s+fn|pub\s+async\s+fn)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/,
  },
  {
    kind: "function",
    re: /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_]\w*)\s*(?::[^=]+)?=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_]\w*)\s*(?::[^=]+)?=>/,
  },
  { kind: "procedure", re: /^\s*(?:local\s+|internal\s+)?procedure\s+"?([A-Za-z_][\w ]*?)"?\s*\(/i },
  {
    kind: "method",
    re: /^\s*(?:(?:public|private|protected|internal|static|async|override|virtual|readonly|final|abstract)\s+)+(?:[\w<>[\],.?]+\s+)?([A-Za-z_]\w*)\s*\(/,
  },
  { kind: "table", re: /^\s*create\s+table\s+(?:if\s+not\s+exists\s+)?["`]?(\w+)/i },
  { kind: "section", re: /^#{1,3}\s+(\S.{1,60}?)\s*#*\s*$/ },
];
/** A word or mark some definition opens with: a line without one opens none. */
const OPENS =
  /^#|\b(?:class|interface|type|enum|struct|trait|record|def|function|func|fn|const|let|var|procedure|public|private|protected|internal|static|async|override|virtual|readonly|final|abstract|create)\b/i;
/** Words a method pattern may take for a name that are no definition's. */
const NOT_A_NAME = new Set(["if", "for", "while", "switch", "catch", "return", "new", "await", "function", "typeof"]);

/** The definitions a text opens, by "kind name", each with its text up to the next definition (its body). */
function definitions(text: string, path: string): Map<string, string> {
  const out = new Map<string, string>();
  // A heading is a section only in a document; in code a "#" line is a comment.
  const doc = /\.(?:md|mdx|markdown|rst|txt)$/i.test(path);
  let open: string | undefined;
  let body: string[] = [];
  const close = () => {
    if (open !== undefined && !out.has(open)) out.set(open, body.join("\n").trim());
  };
  for (const line of text.split("\n")) {
    let opened: string | undefined;
    // Most lines open nothing: one test spares them the table.
    for (const { kind, re } of OPENS.test(line) ? DEFINITIONS : []) {
      if ((kind === "section") !== doc) continue;
      const name = re.exec(line)?.[1]?.trim();
      if (!name || NOT_A_NAME.has(name)) continue;
      opened = `${kind} ${name}`;
      break;
    }
    if (opened) {
      close();
      open = opened;
      body = [];
    }
    body.push(line);
  }
  close();
  return out;
}

/** What a set of hunks did, by file: the definitions added, changed and removed, said in a few words. */
function defsChanged(hunks: readonly Hunk[], files: readonly string[]): Map<string, string> {
  const byFile = new Map<string, { added: Set<string>; changed: Set<string>; removed: Set<string> }>();
  for (const h of hunks) {
    const file = h.before === h.after ? undefined : files.find((f) => samePath(f, h.path));
    if (!file) continue;
    const before = definitions(h.before, file);
    const after = definitions(h.after, file);
    const g = byFile.get(file) ?? { added: new Set(), changed: new Set(), removed: new Set() };
    byFile.set(file, g);
    for (const [k, body] of after) {
      if (!before.has(k)) g.added.add(k);
      else if (before.get(k) !== body) g.changed.add(k);
    }
    for (const k of before.keys()) if (!after.has(k)) g.removed.add(k);
  }
  const out = new Map<string, string>();
  let named = 0;
  for (const [file, g] of byFile) {
    for (const k of g.added) {
      g.changed.delete(k);
      g.removed.delete(k);
    }
    const said: string[] = [];
    for (const [verb, set] of [
      ["added", g.added],
      ["changed", g.changed],
      ["removed", g.removed],
    ] as const) {
      const names = [...set].slice(0, Math.max(0, MAX_NAMES - named));
      named += names.length;
      const more = set.size - names.length;
      if (names.length) said.push(`${verb} ${names.map(nameOf).join(", ")}${more > 0 ? ` and ${more} more` : ""}`);
    }
    if (said.length) out.set(file, said.join("; "));
  }
  return out;
}

/** "function foo" as a unit says it: `function foo`, a section by its heading. */
const nameOf = (k: string): string => {
  const [kind, ...rest] = k.split(" ");
  return `${kind} \`${rest.join(" ")}\``;
};

/** Whether two spellings name one file (a project-relative path and an absolute one, slashes either way). */
function samePath(a: string, b: string): boolean {
  const x = a.replace(/\\/g, "/").replace(/^\.\//, "");
  const y = b.replace(/\\/g, "/").replace(/^\.\//, "");
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

/** Verbs of a change an agent reports having made. */
const DONE_VERBS =
  "added|changed|updated|fixed|removed|renamed|replaced|moved|created|implemented|refactored|modified|converted|wrapped|commented out|introduced|extracted|rewrote|rewritten|switched|adjusted|inserted|deleted|restored|reverted|simplified|enabled|disabled|applied|made|wired|split|merged|set up|set|finished|built|wrote|written|scaffolded|initialized|initialised|installed|bumped|pinned|patched|hardened|tightened|relaxed|exposed|documented";
const TO_DO_VERBS =
  "add|change|update|fix|remove|rename|replace|move|create|implement|refactor|modify|convert|wrap|comment out|uncomment|introduce|extract|rewrite|switch|adjust|insert|delete|restore|revert|simplify|enable|disable|apply|make|wire|split|merge|set up|write|build|scaffold|install|bump|pin|patch|expose|document";
/** The agent's statement of a change it made: "I've added …", "Added …" (a list item), "Now X uses …" is not one. */
const DONE = new RegExp(
  `^(?:(?:ok(?:ay)?|great|done|perfect|alright|so|now)[,!.]?\\s+)?(?:(?:I|we)(?:['’]ve| have)?\\s+(?:also\\s+|now\\s+|just\\s+|successfully\\s+)?(?:${DONE_VERBS})|(?:${DONE_VERBS})\\s+(?!the following\\b)\\S)`,
  "i",
);
/** The agent's statement of a change it is about to make: "I will comment out the call in main.py". */
const TO_DO = new RegExp(
  `^(?:(?:ok(?:ay)?|great|alright|sure|now|so|next)[,!.]?\\s+)?(?:(?:I will|I['’]ll|I am going to|I['’]m going to|we will|we['’]ll|let['’]s|let us|let me)\\s+(?:now\\s+|also\\s+)?|step \\d+\\s*[:.)-]\\s*)(?:${TO_DO_VERBS})\\b`,
  "i",
);
/** An imperative step of the agent's plan ("Add the `X` field to the `Settings` class in config.py"), not one for the person. */
const STEP = new RegExp(`^(?:${TO_DO_VERBS})\\s+(?!your\\b|you\\b|the following\\b)\\S`, "i");
/** The fewest words a statement says beside the files it names: "We'll create `auth.py` for this." says too few. */
const MIN_OWN_WORDS = 6;
/** Something a statement names that the change has: a code span, a file name, an identifier. */
const CONCRETE = /`[^`]+`|\b[\w-]+\.[A-Za-z]{1,5}\b|\b[a-z]+[A-Z]\w*\b|\b\w+_\w+\b|\b\w+\(\)/;

/** Sentences of an agent's message outside its code blocks, each with list markers and bold marks taken off. */
function proseSentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?(?:```|$)/g, "\n")
    .split("\n")
    .map((l) =>
      l
        .replace(/^\s*(?:[-*•+>]|\d{1,2}[.)]|#{1,6})\s+/, "")
        .replace(/\*\*/g, "")
        .trim(),
    )
    .filter(Boolean)
    .flatMap(lineSentences)
    .map((s) => s.trim());
}

/** A file a sentence names: a path or a name with an extension. */
const FILE_NAMED = /(?:[\w.@-]+\/)*[\w@-]+\.(?:[a-z]{1,5})\b/gi;

/** Whether a sentence can stand as the agent's account of a change: whole, not a heading, naming something. */
function accountShaped(s: string, files: readonly string[]): boolean {
  const words = s.split(/\s+/).length;
  if (s.length > MAX_STATEMENT || words < MIN_STATEMENT_WORDS || s.endsWith(":") || s.endsWith("?")) return false;
  // A statement that names files is about this change only when it names one of its files.
  const named = (s.match(FILE_NAMED) ?? []).filter((f) => !/^\d/.test(f) && !/\.(?:e\.g|i\.e)$/i.test(f));
  // By its whole name or its basename: "utils.py" is not "tests/test_utils.py".
  if (named.length && !named.some((n) => files.some((f) => samePath(f, n) || samePath(f, n.split("/").at(-1)!))))
    return false;
  if (
    s
      .replace(FILE_NAMED, " ")
      .split(/\s+/)
      .filter((w) => /[\p{L}\d]/u.test(w)).length < MIN_OWN_WORDS
  )
    return false;
  return CONCRETE.test(s) || (words >= 8 && DONE.test(s));
}

/** The names a statement may call a change's files by: each basename, and its stem when it reads as a code name. */
function ownNames(files: readonly string[]): string[] {
  const out = new Set<string>();
  for (const f of files) {
    const base = f.split(/[\\/]/).at(-1)!;
    out.add(base);
    const stem = base.replace(/\.[^.]+$/, "");
    if (/[_-]|[a-z][A-Z]/.test(stem) && stem.length >= 4) out.add(stem);
  }
  return [...out];
}

/**
 * The agent's own one-line statement of the change: the first in its messages from the turn before the first edit up
 * to the next request that says it made a change (the first naming one of the change's files, if any does) ("I've added the missing `Union` import"), else the first from the
 * request on that says it is about to make one ("I will comment out the call in main.py"), else the first step of its
 * plan put as an imperative ("Add the `X` field to the `Settings` class").
 */
export function changeStatement(
  span: readonly Turn[],
  from: number,
  firstEdit: number,
  to: number,
  files: readonly string[],
): string | undefined {
  let planned: string | undefined;
  let step: string | undefined;
  let done: string | undefined;
  const own = ownNames(files);
  for (let i = Math.max(0, from); i < Math.min(span.length, to); i++) {
    const t = span[i]!;
    if (t.role !== "assistant" || t.sidechain || !t.text.trim()) continue;
    for (const s of proseSentences(t.text)) {
      const made = i >= firstEdit - 1 && DONE.test(s);
      const plan = !made && !planned && TO_DO.test(s);
      const next = !made && !plan && !step && STEP.test(s);
      if (!(made || plan || next) || !accountShaped(s, files)) continue;
      // A report that names one of the change's files is about it; a recap's first item may be about earlier work.
      if (made && own.some((n) => s.includes(n))) return s;
      if (made) done ??= s;
      else if (plan) planned = s;
      else step = s;
    }
  }
  return done ?? planned ?? step;
}

/** What an edit tool says of an edit it made, though it reports an error beside it (problems found after saving). */
const APPLIED =
  /\bsuccessfully (?:saved|applied|written|updated|edited)\b|\bhas been (?:updated|saved|written|modified)\b|made the following updates/i;

/**
 * The hunks of each turn of a span, read once. A file written whole is compared with what an earlier write in the span
 * put there (`before`); one with no earlier text keeps an empty `before` and `whole` set.
 */
export function spanHunks(span: readonly Turn[]): Hunk[][] {
  const written = new Map<string, string>();
  // An edit its tool refused ("String to replace not found", "The user denied this operation") changed nothing: its
  // text is no account of the change. One saved with problems found after it (Cline's lint errors) was made.
  const refused = new Set(
    span.flatMap((t) => t.tool_results.filter((r) => r.is_error && !APPLIED.test(r.output)).map((r) => r.call_id)),
  );
  return span.map((t) => {
    const applied = t.tool_calls.filter((c) => !refused.has(c.id));
    const here = [...applied.flatMap(callHunks), ...(t.role === "assistant" ? textHunks(t.text) : [])];
    return here.map((h) => {
      if (!h.whole) return h;
      const key = h.path.replace(/\\/g, "/");
      const earlier = written.get(key);
      written.set(key, h.after);
      return earlier === undefined ? h : { ...h, before: earlier, whole: false };
    });
  });
}

/**
 * What the edits in [from, to) did to the given files, by file, from the definitions they added, changed or removed. A
 * file written whole with no earlier text in the span is read only when it was created (all it defines is new), never
 * for an overwrite of text the session does not show.
 */
export function editAccount(
  hunks: readonly Hunk[][],
  from: number,
  to: number,
  files: readonly string[],
  created: ReadonlySet<string>,
): Map<string, string> {
  const read = hunks
    .slice(Math.max(0, from), to)
    .flat()
    .filter((h) => !h.whole || [...created].some((c) => samePath(c, h.path)));
  return defsChanged(read, files);
}

/** Where a changed number is a version: a version field or a dotted version string. */
const VERSION = /\bversion\b|["'=@^~v]\d+\.\d+\.\d+/i;

/**
 * A file that keeps a log of the work itself (a prompt history, a session's notes, a progress log): an entry added to
 * it after the work says nothing the work's own units do not.
 */
export const WORK_LOG =
  /(?:^|[\\/])(?:[\w-]*(?:prompt|chat|session|conversation)[-_]?(?:history|log)[\w-]*|(?:history|progress|journal|worklog|devlog)[\w-]*)\.(?:md|txt)$|[\\/](?:sessions|session-notes)[\\/][^\\/]+\.md$/i;

/**
 * Whether every edit the events show of these files is trivial: whitespace only, or a version number changed. False
 * when the events show no edit's text of one of them (the export kept none, a notebook cell, a `sed -i`) or a file
 * written whole.
 */
export function trivialEdits(hunks: readonly Hunk[][], from: number, to: number, files: readonly string[]): boolean {
  const seen = new Set<string>();
  for (const h of hunks.slice(Math.max(0, from), to).flat()) {
    const file = files.find((f) => samePath(f, h.path));
    if (!file) continue;
    if (h.whole) return false;
    seen.add(file);
    const squeeze = (x: string) => x.replace(/\s+/g, "");
    const numbers = (x: string) => squeeze(x).replace(/\d+/g, "N");
    const bump = numbers(h.before) === numbers(h.after) && VERSION.test(`${h.before}\n${h.after}`);
    if (squeeze(h.before) !== squeeze(h.after) && !bump) return false;
  }
  return files.every((f) => seen.has(f));
}
