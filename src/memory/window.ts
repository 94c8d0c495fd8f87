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
  for (const l of flat.split("\n")) {
    if (l.length <= quarter) pieces.push(l);
    else for (let i = 0; i < l.length; i += quarter) pieces.push(l.slice(i, i + quarter));
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
  return pieces.slice(best.from, best.to).join("\n").slice(0, width).trim();
}
