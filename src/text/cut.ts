// Shortening text for display without breaking it: at a sentence or word boundary, never inside a word or an open
// parenthesis, with an ellipsis where something was cut. The one helper every front and card uses.

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** Where a cut at `at` leaves a parenthesis, bracket or brace open: the position of the opener, else -1. */
function openAt(s: string, at: number): number {
  const stack: number[] = [];
  for (let i = 0; i < at; i++) {
    const c = s[i]!;
    if (c === "(" || c === "[" || c === "{") stack.push(i);
    else if ((c === ")" || c === "]" || c === "}") && stack.length > 0) stack.pop();
  }
  return stack.length > 0 ? stack[0]! : -1;
}

/**
 * `s` on one line, at most `max` characters: whole when it fits, else cut at the last sentence end (when that keeps
 * at least half), else at the last word boundary, then moved before any parenthesis the cut would leave open, and
 * marked with an ellipsis. A single word longer than `max` is cut inside it, still marked.
 */
export function clipWords(s: string, max: number): string {
  const one = oneLine(s);
  if (one.length <= max) return one;
  const room = Math.max(1, max - 1);
  const head = one.slice(0, room + 1);
  let cut = -1;
  const sentence = /[.!?](?=\s)/g;
  for (let m = sentence.exec(head); m; m = sentence.exec(head)) if (m.index + 1 <= room) cut = m.index + 1;
  if (cut < room / 2) {
    const sp = head.lastIndexOf(" ", room);
    cut = sp > room / 3 ? sp : room;
  }
  const open = openAt(one, cut);
  if (open > room / 3) cut = open;
  return `${one.slice(0, cut).replace(/[\s,;:–—-]+$/, "")}…`;
}
