// Questions for `memcards eval crosssession`, derived mechanically from the raw turns of earlier sessions. This
// module reads turns with its own small patterns and shares no extraction code with distillation (src/memory,
// src/transcript's ledger and failures), so the store is never graded by the code that filled it.
import type { Turn } from "../../src/conversation/schema.js";

export type QuestionKind = "file" | "error" | "rule" | "decision";

export interface Question {
  kind: QuestionKind;
  question: string;
  /** The string that must appear in what a system returns. */
  answer: string;
  session: string;
  turn: string;
}

/** Whitespace collapsed, lower-cased, markdown emphasis and backticks dropped: the form hits are compared in. */
export function normalizeForMatch(s: string): string {
  return s.replace(/[`*]/g, "").replace(/\s+/g, " ").trim().toLowerCase();
}

const CODE_FENCE = /```[\s\S]*?(?:```|$)/g;

/** The first sentence of a request, code removed, at most `words` words. */
export function gist(text: string, words = 16): string {
  const plain = text.replace(CODE_FENCE, " ").replace(/\s+/g, " ").trim();
  const first = plain.split(/(?<=[.!?])\s/)[0] ?? plain;
  return first
    .split(" ")
    .slice(0, words)
    .join(" ")
    .replace(/[.!?:,;]+$/, "");
}

const STOP = new Set(
  "the a an and or of to in on for with that this it is are be was were not never always must do does don't dont should make sure from by as at we you i our your my me use using please can could would will just also".split(
    " ",
  ),
);

/** The few longest content words of a sentence: what a successor would type to find it. */
function topic(sentence: string, n = 4): string {
  const words = sentence.toLowerCase().match(/[a-z][a-z0-9_./-]{2,}/g) ?? [];
  const seen = new Set<string>();
  return words
    .filter((w) => !STOP.has(w) && !seen.has(w) && seen.add(w))
    .sort((a, b) => b.length - a.length)
    .slice(0, n)
    .join(" ");
}

const EDIT_TOOL =
  /^(edit|multiedit|write|write_file|create|create_file|str_replace_editor|str_replace_based_edit_tool|edit_file|replace_in_file|write_to_file|apply_patch|insert|notebookedit)$/i;
const PATH_FIELDS = ["file_path", "path", "target_file", "filePath", "filename", "notebook_path"];
const APPLIED = /^>?\s*Applied edit to (\S+)\s*$/gm;
const PATCH_FILE = /^\*\*\* (?:Update|Add) File: (\S+)\s*$/gm;
/** A file path: a name with an extension, or a dotfile (`.gitignore`, `src/.env.example`). */
const SHAPED = /^(?:[\w.@/-]+\.[A-Za-z0-9]{1,6}|(?:[\w.@-]+\/)*\.[\w.-]+)$/;

function editedPaths(t: Turn): string[] {
  const out: string[] = [];
  for (const c of t.tool_calls) {
    const input = c.input as Record<string, unknown>;
    if (EDIT_TOOL.test(c.name)) {
      for (const f of PATH_FIELDS) if (typeof input[f] === "string") out.push(input[f] as string);
    }
    for (const v of Object.values(input))
      if (typeof v === "string") for (const m of v.matchAll(PATCH_FILE)) out.push(m[1]!);
  }
  for (const text of [t.text, ...t.tool_results.map((r) => r.output)])
    for (const m of text.matchAll(APPLIED)) out.push(m[1]!);
  return out;
}

function relative(path: string, cwd: string | undefined): string {
  const p = path.replace(/^file:\/\//, "").replace(/^\.\//, "");
  if (cwd && p.startsWith(cwd.endsWith("/") ? cwd : `${cwd}/`)) return p.slice(cwd.length).replace(/^\//, "");
  return p;
}

/**
 * An error line as a tool prints it: the error word at the start of the line (after an optional `file:line:`
 * location), never a line of source code that mentions an error (numbered listings, diffs, calls, literals).
 */
/** The files a session edited (project-relative where its working directory is known). */
export function filesEdited(session: { turns: Turn[]; cwd?: string | undefined }): Set<string> {
  const out = new Set<string>();
  for (const t of session.turns) for (const p of editedPaths(t)) out.add(relative(p, session.cwd));
  return out;
}

const ERROR_LINE =
  /^(?:[\w./\\-]+(?::\d+)+:?\s+)?(?:(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)|error(?:\[\w+\])?|ERROR|fatal|npm ERR!|FAILED|panic|thread '[^']*' panicked)\b[:\s]/;
const CODE_LINE = /^(?:\d+\s|[+-]\s|\/\/|#)|[{};]\s*$|\bconsole\.|\bexpect\(|=>|\bres\.|\bthrow\b/;
const RULE = /\b(always|never|must(?:n't| not)?|don'?t|do not|make sure|should(?:n'?t| not)|from now on|no more)\b/i;
const DECISION =
  /\b(decided to|we decided|I decided|I'?ll use|we'?ll use|going with|chose to|opted|instead of|rather than|switch(?:ed)? to)\b/i;

/** A line of code a person pasted unfenced (`assert a != b, "…must…"`, `print(f"…")`): not something they ruled. */
const PASTED_CODE = /^(?:assert|print|return|import|def|class|raise)\b|^[\w.]+\s*=[^=]|^[\w.]+\(|[{};]\s*$/;

function sentencesOf(text: string): string[] {
  return text
    .replace(CODE_FENCE, " ")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim().replace(/^[-*#>\d.)\s]+/, ""))
    .filter(Boolean);
}

/** Spread picks over the whole list: at most `n`, first and last included. */
function spread<T>(xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  return Array.from({ length: n }, (_, i) => xs[Math.round((i * (xs.length - 1)) / (n - 1))]!);
}

/**
 * File, error, rule and decision questions from the earlier sessions of one project: each answer is a path, an
 * error line, a user's sentence or an assistant's sentence found verbatim in those sessions; at most `perKind`
 * of each kind, spread over the history.
 */
export function questionsFor(
  sessions: { id: string; turns: Turn[]; cwd?: string | undefined }[],
  perKind = 25,
): Question[] {
  const byKind: Record<QuestionKind, Question[]> = { file: [], error: [], rule: [], decision: [] };
  const seen = new Set<string>();
  const add = (q: Question) => {
    const k = `${q.kind}:${normalizeForMatch(q.answer)}:${q.question}`;
    const a = `${q.kind}:${normalizeForMatch(q.answer)}`;
    if (seen.has(k) || (q.kind !== "file" && seen.has(a))) return;
    seen.add(k);
    seen.add(a);
    byKind[q.kind].push(q);
  };
  for (const s of sessions) {
    let request = "";
    let edits = new Map<string, { n: number; turn: string }>();
    const flushEdits = () => {
      const best = [...edits.entries()].sort((a, b) => b[1].n - a[1].n)[0];
      if (best && request)
        add({
          kind: "file",
          question: `Which file was changed to ${request}?`,
          answer: best[0],
          session: s.id,
          turn: best[1].turn,
        });
      edits = new Map();
    };
    for (const t of s.turns) {
      if (t.kind !== "message") continue;
      if (t.role === "user" && !t.sidechain && t.text.trim()) {
        const g = gist(t.text);
        if (g.split(" ").length >= 3) {
          flushEdits();
          request = g;
        }
        for (const sentence of sentencesOf(t.text)) {
          if (sentence.length < 25 || sentence.length > 200 || sentence.endsWith("?") || !RULE.test(sentence)) continue;
          if (PASTED_CODE.test(sentence)) continue;
          const tp = topic(sentence);
          if (tp)
            add({
              kind: "rule",
              question: `What did the user rule about ${tp}?`,
              answer: sentence,
              session: s.id,
              turn: t.id,
            });
        }
      }
      if (t.role === "assistant" && !t.sidechain) {
        for (const sentence of sentencesOf(t.text)) {
          if (sentence.length < 30 || sentence.length > 200 || !DECISION.test(sentence)) continue;
          const tp = topic(sentence);
          if (tp)
            add({
              kind: "decision",
              question: `What was decided about ${tp}?`,
              answer: sentence,
              session: s.id,
              turn: t.id,
            });
        }
      }
      if (request) {
        for (const p of editedPaths(t)) {
          const path = relative(p, s.cwd);
          if (!SHAPED.test(path)) continue;
          const e = edits.get(path) ?? { n: 0, turn: t.id };
          e.n++;
          edits.set(path, e);
        }
        const outputs = [...t.tool_results.map((r) => r.output), ...(t.role === "user" ? [t.text] : [])];
        for (const out of outputs)
          for (const raw of out.split("\n")) {
            const line = raw.trim().replace(/^>\s?/, "");
            if (line.length < 20 || line.length > 160 || !ERROR_LINE.test(line) || CODE_LINE.test(line)) continue;
            const cls = /\b([A-Z][A-Za-z]*(?:Error|Exception))\b/.exec(line)?.[1];
            add({
              kind: "error",
              question: `What ${cls ?? "error"} came up while working on ${request}?`,
              answer: line,
              session: s.id,
              turn: t.id,
            });
          }
      }
    }
    flushEdits();
  }
  return [
    ...spread(byKind.file, perKind),
    ...spread(byKind.error, perKind),
    ...spread(byKind.rule, perKind),
    ...spread(byKind.decision, perKind),
  ];
}
