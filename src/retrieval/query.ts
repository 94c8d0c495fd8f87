// Turns task text into search terms and anchors: identifiers, dotted names, paths, stack frames, test ids. The
// search terms are plain text work, in text/search-terms.ts, where memory's recall uses them too.
import { splitIdentifier } from "../text/identifiers.js";
import { STOP_WORDS } from "../text/search-terms.js";

export { matchOf, type QueryTerms, queryTerms } from "../text/search-terms.js";

export type AnchorKind = "path" | "module" | "frame" | "identifier" | "test" | "phrase" | "member";

export interface Anchor {
  kind: AnchorKind;
  /** The text as it appears in the task (a path, a dotted name, an identifier). */
  text: string;
  /** Line number from a stack frame, when known. */
  line?: number;
  /** Rough specificity before matching: compound and longer names are worth more. */
  weight: number;
  /** A capitalized prose word that may be a class name: only a definition confirms it, not a file name. */
  weak?: boolean;
}

const PATH_RE =
  /(?:^|[\s"'`([<])((?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,6}|[\w-]+\.(?:py|ts|tsx|js|jsx|mjs|cjs|rs|go|java|kt|rb|c|h|cc|cpp|hpp|cs|php|swift|scala|md|toml|json|yaml|yml|cfg|ini))(?::(\d+))?/g;
const PY_FRAME = /File "([^"]+)", line (\d+)/g;
const JS_FRAME = /at (?:[\w$.<>]+ )?\(?((?:[A-Za-z]:)?[^\s():]+\.[a-z]{1,4}):(\d+)(?::\d+)?\)?/g;
const JAVA_FRAME = /at ([\w$.]+)\.[\w$<>]+\(([\w$]+\.(?:java|kt|scala)):(\d+)\)/g;
const RUST_FRAME = /(?:^|\s)((?:src|tests|crates)\/[\w/.-]+\.rs):(\d+)/gm;
// Starts only where a run of path characters starts: tried at every position inside a run, the greedy
// `[\w/.-]+` rescans the rest of it each time, quadratic in a long run (a pasted log line, a minified file).
const TEST_ID = /(?<![\w/.-])([\w/.-]+\.py)::([\w:[\]-]+)/g;
const DOTTED = /\b([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*){1,6})\b/g;
const IDENT = /\b([A-Za-z_$][\w$]*)\b/g;

/** True for identifiers that look like code rather than prose: camelCase, snake_case, PascalCase, ALL_CAPS. */
export function looksLikeCode(word: string): boolean {
  if (word.length < 3) return false;
  if (word.includes("_")) return /[A-Za-z]/.test(word);
  if (/[a-z][A-Z]/.test(word)) return true; // camelCase
  if (/^[A-Z][a-z0-9]+[A-Z]/.test(word)) return true; // PascalCase compound
  if (/^[A-Z][A-Z0-9]{2,}$/.test(word)) return false; // plain acronyms are mostly prose (HTTP, JSON)
  return false;
}

/**
 * Whether the capitalized word at `at` sits in a Title Case run ("Language Card", "Total Commits"): a
 * capitalized neighbor that is not itself the first word of a sentence. "The Session object" is not a run.
 */
function inTitleCaseRun(text: string, at: number, len: number): boolean {
  const before = text.slice(Math.max(0, at - 60), at);
  const prev = /([A-Z][a-z]+)\s+$/.exec(before);
  if (prev) {
    const lead = before.slice(0, prev.index).trimEnd();
    const sentenceStart = lead === "" ? at - before.length === 0 : /[.!?:\n#*>-]$/.test(lead);
    if (!sentenceStart) return true;
  }
  return /^\s+[A-Z][a-z]+\b/.test(text.slice(at + len, at + len + 30));
}

/** Anchors named in the task: explicit paths and frames first, then dotted module names and code identifiers. */
export function extractAnchors(text: string): Anchor[] {
  const out = new Map<string, Anchor>();
  const add = (a: Anchor) => {
    const key = `${a.kind}:${a.text}`;
    const prev = out.get(key);
    if (!prev || prev.weight < a.weight) out.set(key, a);
  };
  for (const m of text.matchAll(PY_FRAME)) add({ kind: "frame", text: m[1]!, line: Number(m[2]), weight: 1 });
  for (const m of text.matchAll(JS_FRAME)) add({ kind: "frame", text: m[1]!, line: Number(m[2]), weight: 1 });
  for (const m of text.matchAll(JAVA_FRAME)) {
    add({ kind: "module", text: m[1]!, weight: 1 });
    add({ kind: "frame", text: m[2]!, line: Number(m[3]), weight: 0.8 });
  }
  for (const m of text.matchAll(RUST_FRAME)) add({ kind: "frame", text: m[1]!, line: Number(m[2]), weight: 1 });
  for (const m of text.matchAll(TEST_ID)) add({ kind: "test", text: m[1]!, weight: 1 });
  for (const m of text.matchAll(PATH_RE)) {
    const p = m[1]!;
    if (/^https?:/.test(p) || p.includes("://")) continue;
    add({ kind: "path", text: p, ...(m[2] ? { line: Number(m[2]) } : {}), weight: p.includes("/") ? 1 : 0.8 });
  }
  for (const m of text.matchAll(DOTTED)) {
    const d = m[1]!;
    if (/\.(py|ts|js|rs|go|java|md|txt|html|com|org|io)$/i.test(d)) continue;
    const parts = d.split(".");
    if (parts.every((p) => /^[a-z]+$/.test(p) && p.length < 3)) continue; // e.g. "e.g", "i.e"
    add({ kind: "module", text: d, weight: 0.6 + 0.1 * Math.min(parts.length, 4) });
  }
  for (const m of text.matchAll(IDENT)) {
    const w = m[1]!;
    if (looksLikeCode(w)) {
      const parts = splitIdentifier(w).length;
      add({ kind: "identifier", text: w, weight: Math.min(1, 0.4 + 0.15 * parts + 0.01 * w.length) });
    } else if (
      /^[A-Z][a-z]{2,}[a-z0-9]*$/.test(w) &&
      m.index > 0 &&
      !/[.!?\n]\s*$/.test(text.slice(Math.max(0, m.index - 4), m.index)) &&
      !inTitleCaseRun(text, m.index, w.length)
    ) {
      // A capitalized word inside a sentence is often a class name (Dataset, Session); matching against
      // definitions decides whether it is one.
      add({ kind: "identifier", text: w, weight: 0.45, weak: true });
    }
  }
  // Calls and attribute access mark plain words as code: `merge(`, `.to_netcdf`, `obj.attrs`.
  for (const m of text.matchAll(/(?:\.|\b)([A-Za-z_][\w]{2,})(?=\()|\.([A-Za-z_][\w]{2,})\b/g)) {
    const w = (m[1] ?? m[2])!;
    add({ kind: "identifier", text: w, weight: 0.55 });
  }
  // Two or three words in a row may name a file in kebab, snake or Pascal case: "stats card" →
  // stats-card.js, "pretty printer" → pretty_printer.rs, "type adapter" → TypeAdapter.java.
  const phrases = new Set<string>();
  for (const sentence of text.split(/[.,;:!?()[\]{}"'`<>\n]+/)) {
    // Runs of plain words only: `duck_array_ops` or `a.b` is an identifier, handled above.
    const tokens = sentence.split(/\s+/);
    const plain = tokens.map((x) => /^[A-Za-z][a-z0-9]*$/.test(x));
    const lower = tokens.map((x) => x.toLowerCase());
    for (let n = 3; n >= 2; n--) {
      for (let i = 0; i + n <= tokens.length; i++) {
        if (!plain[i] || !plain[i + 1] || (n === 3 && !plain[i + 2])) continue;
        const w = lower.slice(i, i + n);
        if (STOP_WORDS.has(w[0]!) || STOP_WORDS.has(w[n - 1]!) || w.some((x) => x.length < 2)) continue;
        const joined = w.join("");
        // A phrase repeated in the text adds nothing new (a pasted log repeats the same words).
        if (phrases.has(joined)) continue;
        phrases.add(joined);
        add({ kind: "phrase", text: joined, weight: n === 3 ? 0.8 : 0.7 });
        if (w[n - 1]!.endsWith("s") && w[n - 1]!.length > 3)
          add({ kind: "phrase", text: joined.slice(0, -1), weight: n === 3 ? 0.8 : 0.7 });
      }
    }
  }
  // `Type::method` (Rust, C++) and `Type.method(` name a member of a type: the file defining both is meant.
  for (const m of text.matchAll(/\b([A-Z][A-Za-z0-9_]*)(?:::|\.)([a-z_][A-Za-z0-9_]{2,})\b/g)) {
    add({ kind: "member", text: `${m[1]}::${m[2]}`, weight: 1 });
  }
  // Annotations and decorators (`@Captor`, `@Component`) are code names.
  for (const m of text.matchAll(/(?:^|[\s(`])@([A-Z][A-Za-z0-9_]{2,})\b/g)) {
    add({ kind: "identifier", text: m[1]!, weight: 0.8 });
  }
  // Text in backticks or code spans is code.
  for (const m of text.matchAll(/`([A-Za-z_][\w]*)`/g)) {
    const w = m[1]!;
    if (w.length >= 3) add({ kind: "identifier", text: w, weight: 0.7 });
  }
  return [...out.values()];
}
