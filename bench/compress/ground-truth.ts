// Ground-truth probes for the five-system evaluation, taken from the raw transcript by code that shares
// nothing with the summarizer: real edit calls and a trajectory's final patch (artifacts), failed tool
// results and reported exceptions (errors), decision sentences of the agent, the user's own words
// (commitments, from the hand-labelled quotes where the file is in the labelled set) and the open items of
// the last plan (next steps). Each probe asks for an association where it can: a path with what was done to it,
// an error class with the name it was about.
import { readFileSync } from "node:fs";

import type { Turn } from "../../src/conversation/schema.js";
import type { Transcript } from "../../src/transcript/schema.js";

export const PROBE_CATEGORIES = ["artifact", "error", "decision", "commitment", "next"] as const;
export type ProbeCategory = (typeof PROBE_CATEGORIES)[number];

/**
 * `cooccur`: every group has one alternative present, all within `window` characters of each other.
 * `words`: at least `need` of the content words appear within a window twice the phrase's length.
 */
export type GroundProbe =
  | { category: ProbeCategory; kind: "cooccur"; groups: string[][]; window: number; label: string; turn: string }
  | { category: ProbeCategory; kind: "words"; words: string[]; need: number; label: string; turn: string };

const ADD = ["added", "adding", "adds", "add "];
/** Word starts that say what was done to a file (matched at the start of a word). */
const OPS: Record<string, string[]> = {
  created: ["creat", "new file", "wrote", "write", "written", "generat", ...ADD],
  modified: [
    "edit",
    "modif",
    "updat",
    "chang",
    "str_replace",
    "replac",
    "patch",
    "fixed",
    "fixes",
    "fixing",
    "fix ",
    "applied",
    "diff ",
    "diff:",
    "diffs",
    "rewr",
    "refactor",
    "renam",
    ...ADD,
  ],
  deleted: ["delet", "remov", "rm "],
};

const STOP = new Set(
  "the a an and or of to in on for with is are was were be been this that it its at by from as but not no so if then than into can could would should will just also all any some more most very our your you we i me my they them their there here what which who when where how do does did done have has had let lets make sure please use using only".split(
    " ",
  ),
);

/** Lower-case words of 3+ characters that are not stop words. */
export function contentWords(text: string): string[] {
  return [
    ...new Set(
      (text.toLowerCase().match(/[a-z0-9_][a-z0-9_.\-/]*[a-z0-9_]/g) ?? []).filter(
        (w) => w.length >= 3 && !STOP.has(w),
      ),
    ),
  ];
}

/** The last two segments of a path: what any summary, window or excerpt would name it by. */
export function pathTail(path: string): string {
  const parts = path
    .replace(/\\/g, "/")
    .split("/")
    .filter((p) => p && p !== ".");
  return parts.slice(-2).join("/");
}

const EDIT_TOOL =
  /^(Edit|MultiEdit|Write|NotebookEdit|aider_edit|str_replace_editor|create_file|edit_file|write_file|apply_patch)$/i;
const EXC = /\b([A-Z][A-Za-z0-9]*(?:Error|Exception))\b[:\s]*([^\n]{0,120})/;

function opClass(tool: string, op: unknown, input: Record<string, unknown>): keyof typeof OPS {
  const s =
    `${tool} ${typeof op === "string" ? op : ""} ${typeof input.command === "string" ? input.command : ""}`.toLowerCase();
  if (/delet|remov/.test(s)) return "deleted";
  if (/^write|create/.test(s) && !/applied|diff/.test(s)) return "created";
  return "modified";
}

function patchFiles(patch: string): { path: string; op: keyof typeof OPS }[] {
  const out: { path: string; op: keyof typeof OPS }[] = [];
  const blocks = patch.split(/^diff --git /m).slice(1);
  for (const b of blocks) {
    const m = /^a\/(\S+) b\/(\S+)/.exec(b);
    if (!m) continue;
    const op = /^new file mode/m.test(b) ? "created" : /^deleted file mode/m.test(b) ? "deleted" : "modified";
    out.push({ path: m[2]!, op });
  }
  return out;
}

function salient(text: string, exclude: string): string | undefined {
  const words = (text.match(/[A-Za-z_][A-Za-z0-9_]{4,}/g) ?? []).filter(
    (w) =>
      w !== exclude &&
      !STOP.has(w.toLowerCase()) &&
      !/^(Traceback|Error|error|File|line|most|recent|call|last)$/.test(w),
  );
  return words.sort((a, b) => b.length - a.length)[0];
}

function sentencesOf(text: string): string[] {
  return text
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const DECISION =
  /\b(decided to|I(?:'ll| will) (?:use|go with|switch)|going with|opted (?:to|for)|chose|instead of|rather than|switch(?:ed)? to|the fix is to|the approach is)\b/i;

export interface GroundTruthOptions {
  /** Hand-labelled commitment quotes of this transcript's turns (from the labelled set), by turn id. */
  commitments?: Map<string, string[]>;
  /** Path of the raw file, for a trajectory's final patch. */
  path?: string;
}

/** The probes of a transcript. */
export function groundTruth(t: Transcript, opts: GroundTruthOptions = {}): GroundProbe[] {
  const probes: GroundProbe[] = [];
  const seen = new Set<string>();
  const push = (p: GroundProbe, key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    probes.push(p);
  };
  const artifact = (path: string, op: keyof typeof OPS, turn: string) => {
    const tail = pathTail(path);
    if (!tail) return;
    push(
      { category: "artifact", kind: "cooccur", groups: [[tail], OPS[op]!], window: 240, label: `${op} ${tail}`, turn },
      `a:${tail}:${op}`,
    );
  };
  const turns: Turn[] = t.turns;
  for (const turn of turns) {
    for (const c of turn.tool_calls) {
      const path = c.input.file_path ?? c.input.path ?? c.input.target_file ?? c.input.filePath;
      if (EDIT_TOOL.test(c.name) && typeof path === "string")
        artifact(path, opClass(c.name, c.input.op, c.input), turn.id);
      if (typeof c.input.patch === "string") for (const f of patchFiles(c.input.patch)) artifact(f.path, f.op, turn.id);
    }
    const errorTexts = [
      ...turn.tool_results.filter((r) => r.is_error || EXC.test(r.output)).map((r) => r.output),
      ...(turn.role === "user" && !turn.sidechain && turn.kind === "message" ? [turn.text] : []),
    ];
    for (const text of errorTexts) {
      const m = EXC.exec(text);
      if (!m) continue;
      const about = salient(m[2] ?? "", m[1]!);
      push(
        {
          category: "error",
          kind: "cooccur",
          groups: about ? [[m[1]!], [about]] : [[m[1]!]],
          window: 200,
          label: about ? `${m[1]} (${about})` : m[1]!,
          turn: turn.id,
        },
        `e:${m[1]}:${about ?? ""}`,
      );
    }
    if (turn.role === "assistant" && turn.kind === "message" && !turn.sidechain) {
      for (const s of sentencesOf(turn.text)) {
        if (s.length < 30 || s.length > 300 || !DECISION.test(s)) continue;
        const words = contentWords(s);
        if (words.length >= 4)
          push(
            { category: "decision", kind: "words", words, need: 0.6, label: s.slice(0, 120), turn: turn.id },
            `d:${words.join(" ")}`,
          );
      }
    }
  }
  // A trajectory's final patch, when the parser kept none as a call.
  if (opts.path?.endsWith(".traj")) {
    try {
      const root = JSON.parse(readFileSync(opts.path, "utf8")) as { info?: { submission?: unknown } };
      if (typeof root.info?.submission === "string")
        for (const f of patchFiles(root.info.submission)) artifact(f.path, f.op, "submission");
    } catch {
      // The parser already reported an unreadable file.
    }
  }
  // Commitments: the labelled quotes where there are some, else the user's sentences with a binding word.
  const byId = new Map(turns.map((x) => [x.id, x]));
  if (opts.commitments && opts.commitments.size > 0) {
    for (const [turnId, quotes] of opts.commitments) {
      if (!byId.has(turnId)) continue;
      for (const q of quotes) {
        const words = contentWords(q);
        if (words.length >= 2)
          push(
            { category: "commitment", kind: "words", words, need: 0.7, label: q, turn: turnId },
            `c:${words.join(" ")}`,
          );
      }
    }
  } else {
    for (const turn of turns) {
      if (turn.role !== "user" || turn.kind !== "message" || turn.sidechain) continue;
      for (const s of sentencesOf(turn.text)) {
        if (!/\b(must|never|always|don'?t|do not|only|make sure|please|need to|should)\b/i.test(s) || s.length > 300)
          continue;
        const words = contentWords(s);
        if (words.length >= 2)
          push(
            { category: "commitment", kind: "words", words, need: 0.7, label: s.slice(0, 120), turn: turn.id },
            `c:${words.join(" ")}`,
          );
      }
    }
  }
  // Next steps: the open items of the last plan (TodoWrite, update_plan), else the last user request.
  let planned = false;
  for (let i = turns.length - 1; i >= 0 && !planned; i--) {
    for (const c of turns[i]!.tool_calls) {
      const items: string[] = [];
      if (c.name === "TodoWrite" && Array.isArray(c.input.todos)) {
        for (const x of c.input.todos as Record<string, unknown>[])
          if (x.status !== "completed" && typeof x.content === "string") items.push(x.content);
      } else if (c.name === "update_plan" && typeof c.input.text === "string") {
        for (const line of c.input.text.split("\n")) {
          const m = /^\s*-\s*\[(pending|in_progress)\]\s*(.+)$/.exec(line);
          if (m) items.push(m[2]!);
        }
      } else continue;
      planned = true;
      for (const item of items) {
        const words = contentWords(item);
        if (words.length >= 2)
          push(
            { category: "next", kind: "words", words, need: 0.6, label: item.slice(0, 120), turn: turns[i]!.id },
            `n:${words.join(" ")}`,
          );
      }
    }
  }
  if (!planned) {
    const last = [...turns]
      .reverse()
      .find((x) => x.role === "user" && x.kind === "message" && !x.sidechain && x.text.trim());
    const first = last ? sentencesOf(last.text).find((s) => contentWords(s).length >= 2) : undefined;
    if (last && first) {
      const words = contentWords(first).slice(0, 12);
      push(
        { category: "next", kind: "words", words, need: 0.6, label: first.slice(0, 120), turn: last.id },
        `n:${words.join(" ")}`,
      );
    }
  }
  return probes;
}

/**
 * Where `needle` occurs starting a word (`auth.ts` not inside `oauth.ts`, `add` not inside `pad`); a needle
 * ending in a digit must also end one (`3 passed` not inside `13 passed`, `v1` not inside `v12`).
 */
function wordStarts(hay: string, needle: string): number[] {
  const out: number[] = [];
  const word = /[a-z0-9_]/;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    if (at > 0 && word.test(hay[at - 1]!) && word.test(needle[0]!)) continue;
    const after = hay[at + needle.length];
    if (/[0-9]$/.test(needle) && after && /[0-9]/.test(after)) continue;
    out.push(at);
  }
  return out;
}

/** Whether `text` answers the probe. `text` is matched lower-cased with whitespace collapsed. */
export function probeHolds(p: GroundProbe, text: string): boolean {
  const hay = text.toLowerCase().replace(/[`*]/g, "").replace(/\s+/g, " ");
  if (p.kind === "cooccur") {
    const first = p.groups[0]!.map((g) => g.toLowerCase());
    for (const alt of first) {
      for (const at of wordStarts(hay, alt)) {
        const lo = Math.max(0, at - p.window);
        const region = hay.slice(lo, at + alt.length + p.window);
        if (p.groups.slice(1).every((g) => g.some((x) => wordStarts(region, x.toLowerCase()).length > 0))) return true;
      }
    }
    return false;
  }
  const need = Math.max(1, Math.ceil(p.need * p.words.length));
  const words = hay.match(/[a-z0-9_][a-z0-9_.\-/]*[a-z0-9_]/g) ?? [];
  const want = new Set(p.words);
  const span = Math.max(12, 2 * p.words.length + 8);
  // Slide a window of `span` words; count distinct wanted words inside.
  const counts = new Map<string, number>();
  let distinct = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (want.has(w)) {
      counts.set(w, (counts.get(w) ?? 0) + 1);
      if (counts.get(w) === 1) distinct++;
    }
    const out = i - span;
    if (out >= 0 && want.has(words[out]!)) {
      const n = counts.get(words[out]!)! - 1;
      counts.set(words[out]!, n);
      if (n === 0) distinct--;
    }
    if (distinct >= need) return true;
  }
  return false;
}
