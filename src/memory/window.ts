// The best window of a turn for a query: the run of lines, at most `width` characters, that holds the most of the
// query's distinct terms (earliest on a tie), so a hit shows the evidence an answer is in, not the turn's opening.
import { identifierTokens } from "../text/identifiers.js";

export function bestWindow(text: string, terms: readonly string[], width = 600): string {
  const flat = text.trim();
  if (flat.length <= width) return flat;
  const want = new Set(terms);
  const lines = flat.split("\n");
  // A single long line is cut into pieces of a quarter width, so a window can start inside it.
  const pieces = lines.flatMap((l) =>
    l.length <= width / 4 ? [l] : (l.match(new RegExp(`.{1,${Math.floor(width / 4)}}`, "g")) ?? []),
  );
  const found = pieces.map((p) => new Set(identifierTokens(p).filter((w) => want.has(w))));
  let best = { score: -1, from: 0, to: 1 };
  for (let i = 0; i < pieces.length; i++) {
    const got = new Set<string>();
    let len = 0;
    let j = i;
    while (j < pieces.length && len + pieces[j]!.length + 1 <= width) {
      for (const w of found[j]!) got.add(w);
      len += pieces[j]!.length + 1;
      j++;
    }
    if (j === i) j = i + 1;
    if (got.size > best.score) best = { score: got.size, from: i, to: j };
  }
  return pieces.slice(best.from, best.to).join("\n").slice(0, width).trim();
}
