// Shortening a summary line without breaking it: at a sentence or word boundary, never inside parentheses.
import { clipWords } from "../../text/cut.js";

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

export { clipWords };

/** Sentences end at . ! ? followed by a space, or at a line break. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s.length > 2);
}

/** Words that mark an instruction or a correction in what a person wrote. */
export const CONSTRAINT_CUES =
  /\b(don'?t|do not|never|always|must|should|shouldn'?t|need(s|ed)? to|instead|without|only|make sure|ensure|please|i want|i'?d like|i have|we have|keep|remove|revert|stop|use|not|no|prefer|rather|avoid|still|again|didn'?t|doesn'?t|isn'?t|wrong|fix|follow|let'?s|can you|could you)\b/i;

/**
 * A message in at most `max` characters of whole sentences: whole when it fits, else its opening sentences, then the
 * sentences carrying an instruction cue, then its closing sentence when that carries a cue (where a person often puts
 * the standing rule: "Make only the minimum changes required."), with an ellipsis wherever sentences were left out.
 */
export function wholeSentences(text: string, max: number, cues = CONSTRAINT_CUES, leadShare = 0.4): string {
  const one = oneLine(text);
  if (one.length <= max) return one;
  const all = sentences(text);
  const last = all[all.length - 1];
  const end = all.length > 2 && last && cues.test(last) && last.length + 4 < max / 3 ? last : undefined;
  const ss = end ? all.slice(0, -1) : all;
  const room = end ? max - end.length - 4 : max;
  const parts: string[] = [];
  let len = 0;
  let gap = false;
  ss.forEach((x, i) => {
    const lead = i === 0 || (!gap && len + x.length < room * leadShare);
    const fits = len + x.length + 2 <= room;
    if (fits && (lead || (cues.test(x) && x.length < 400))) {
      parts.push(`${gap && parts.length > 0 ? "… " : ""}${x}`);
      len += x.length + 2;
      gap = false;
    } else gap = true;
  });
  if (parts.length === 0) return clipWords(one, max);
  const body = `${parts.join(" ")}${gap ? " …" : ""}`;
  return end ? `${body} ${end}` : body;
}

/** The cues of a prohibition or a requirement: what a shortened constraint keeps first. */
export const FIRM_CUES =
  /\b(don'?t|do not|never|always|must|mustn'?t|without|only|instead|avoid|make sure|ensure|shouldn'?t|should not|no longer)\b/i;
