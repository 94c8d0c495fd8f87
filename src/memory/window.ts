// The best window of a turn for a query: the run of lines, at most `width` characters, that holds the most of the
// query's distinct terms (earliest on a tie), so a hit shows the evidence an answer is in, not the turn's opening.
import { identifierTokens } from "../text/identifiers.js";

export function bestWindow(text: string, terms: readonly string[], width = 600): string {
  const flat = text.trim();
  if (flat.length <= width) return flat;
  const want = new Set(terms);
  const quarter = Math.max(1, Math.floor(width / 4));
  // A single long line is cut into pieces of a quarter width, so a window can start inside it.
  const pieces: string[] = [];
  /** Whether a piece goes on the line of the piece before it: joined back without a line break. */
  const goesOn: boolean[] = [];
  for (const l of flat.split("\n")) {
    if (l.length <= quarter) {
      pieces.push(l);
      goesOn.push(false);
    } else
      for (let i = 0; i < l.length; i += quarter) {
        pieces.push(l.slice(i, i + quarter));
        goesOn.push(i > 0);
      }
  }
  const found = pieces.map((p) => (/\w/.test(p) ? [...new Set(identifierTokens(p).filter((w) => want.has(w)))] : []));
  // Two pointers over the pieces: the window [from, to) grows while it fits and shrinks from the left.
  const count = new Map<string, number>();
  let distinct = 0;
  let len = 0;
  let to = 0;
  let best = { score: -1, from: 0, to: 1 };
  for (let from = 0; from < pieces.length; from++) {
    while (to < pieces.length && (to === from || len + pieces[to]!.length + 1 <= width)) {
      for (const w of found[to]!) {
        const c = count.get(w) ?? 0;
        if (c === 0) distinct++;
        count.set(w, c + 1);
      }
      len += pieces[to]!.length + 1;
      to++;
    }
    if (distinct > best.score) best = { score: distinct, from, to };
    for (const w of found[from]!) {
      const c = count.get(w)!;
      if (c === 1) distinct--;
      count.set(w, c - 1);
    }
    len -= pieces[from]!.length + 1;
  }
  const shown = pieces.slice(best.from, best.to).map((p, i) => (i > 0 && !goesOn[best.from + i] ? `\n${p}` : p));
  return shown.join("").slice(0, width).trim();
}

/**
 * The run of whole sentences, at most `width` characters, that holds the most of the query's distinct terms (the
 * shortest such run, earliest on a tie): a window that never cuts a word or a sentence. A single sentence longer than
 * `width` is cut at word edges around its first query term.
 */
export function sentenceWindow(text: string, terms: readonly string[], width = 360): string {
  const want = new Set(terms);
  const sentences = text
    .split(/\n+|(?<=[.!?])\s+(?=\S)/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s.length > 0);
  const found = sentences.map((s) => new Set(identifierTokens(s).filter((w) => want.has(w))));
  let best = { score: 0, from: 0, to: 0, len: Infinity };
  for (let from = 0; from < sentences.length; from++) {
    const seen = new Set<string>();
    let len = -1;
    for (let to = from; to < sentences.length; to++) {
      len += sentences[to]!.length + 1;
      if (len > width && to > from) break;
      for (const w of found[to]!) seen.add(w);
      if (seen.size > best.score || (seen.size === best.score && seen.size > 0 && len < best.len))
        best = { score: seen.size, from, to: to + 1, len };
      if (len > width) break;
    }
  }
  if (best.score === 0) return "";
  // The sentences around it while they fit: what the terms were said about is often the next sentence.
  let { from, to, len } = best;
  for (;;) {
    if (to < sentences.length && len + sentences[to]!.length + 1 <= width) len += sentences[to++]!.length + 1;
    else if (from > 0 && len + sentences[from - 1]!.length + 1 <= width) len += sentences[--from]!.length + 1;
    else break;
  }
  const out = sentences.slice(from, to).join(" ");
  if (out.length <= width) return out;
  // One long sentence: the words around its first query term.
  const words = out.split(" ");
  const first = Math.max(
    0,
    words.findIndex((w) => identifierTokens(w).some((t) => want.has(t))),
  );
  let a = first;
  let b = first + 1;
  let n = words[first]!.length;
  while (n < width && (a > 0 || b < words.length)) {
    if (b < words.length && (b - first <= first - a || a === 0)) n += words[b++]!.length + 1;
    else n += words[--a]!.length + 1;
  }
  return `${a > 0 ? "… " : ""}${words.slice(a, b).join(" ")}${b < words.length ? " …" : ""}`;
}
