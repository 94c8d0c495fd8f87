// A model's reasoning written into a markdown transcript as markup: the scratchpad, not conversation.
import { fenceMask } from "../rendering/markdown.js";

/**
 * Reasoning blocks as clients write them: aider's `<thinking-content-HASH>` and its pretty `► **THINKING**` /
 * `► **ANSWER**` pair, the `<think>`/`<thinking>`/`<reasoning>` tags models emit, and an export's collapsed
 * `<details>` whose summary names reasoning or thinking. Each block runs from its opening to the first closing
 * after it (of the same tag name for tags).
 */
const BLOCKS: { open: RegExp; close: RegExp }[] = [
  {
    open: /<(thinking-content-[0-9a-f]+|think|thinking|reasoning)>/g,
    close: /<\/(thinking-content-[0-9a-f]+|think|thinking|reasoning)>/g,
  },
  { open: /^-{3,}\s*\n► \*\*THINKING\*\*/gm, close: /^-{3,}\s*\n► \*\*ANSWER\*\*[ \t]*$/gm },
  {
    open: /<details>\s*<summary>[^<\n]*\b(?:[Rr]easoning|[Tt]hinking|[Tt]hought)s?\b[^<\n]*<\/summary>/g,
    close: /<\/details>/g,
  },
];
/** A tag left open (a reply cut off while the model was still thinking): the tag goes, the words stay. */
const STRAY_TAG =
  /<\/?(?:thinking-content-[0-9a-f]+|think|thinking|reasoning)>|^► \*\*(?:THINKING|ANSWER)\*\*[ \t]*$/gm;

/**
 * `text` without the blocks `open` … `close` (a closing names the same tag as its opening when both capture one).
 * Closings are found once and walked in order, so an opening that is never closed costs no rescan of the rest.
 */
function withoutBlocks(text: string, open: RegExp, close: RegExp): string {
  const code = inCode(text);
  const closings = new Map<string, { at: number; end: number }[]>();
  for (const m of text.matchAll(close)) {
    if (code(m.index)) continue;
    const key = m[1] ?? "";
    let list = closings.get(key);
    if (!list) closings.set(key, (list = []));
    list.push({ at: m.index, end: m.index + m[0].length });
  }
  if (closings.size === 0) return text;
  const next = new Map<string, number>();
  let out = "";
  let pos = 0;
  open.lastIndex = 0;
  for (let m = open.exec(text); m; m = open.exec(text)) {
    if (code(m.index)) continue;
    const key = m[1] ?? "";
    const list = closings.get(key) ?? [];
    const from = m.index + m[0].length;
    let j = next.get(key) ?? 0;
    while (j < list.length && list[j]!.at < from) j++;
    next.set(key, j);
    if (j === list.length) continue;
    out += text.slice(pos, m.index);
    pos = list[j]!.end;
    open.lastIndex = pos;
  }
  return out + text.slice(pos);
}

/** Whether an offset of `text` lies in a fenced code block: markup there is code the reply shows, not reasoning. */
function inCode(text: string): (at: number) => boolean {
  const lines = text.split("\n");
  const mask = fenceMask(lines);
  const starts: number[] = [];
  let pos = 0;
  for (const l of lines) {
    starts.push(pos);
    pos += l.length + 1;
  }
  return (at) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return mask[lo]!;
  };
}

/** `text` without its reasoning blocks; the reply the person saw is what is left. Fenced code is left as written. */
export function withoutReasoning(text: string): string {
  let out = text;
  for (const b of BLOCKS) out = withoutBlocks(out, b.open, b.close);
  const code = inCode(out);
  out = out.replace(STRAY_TAG, (tag: string, at: number) => (code(at) ? tag : ""));
  // A reply with no reasoning in it is left exactly as written.
  if (out === text) return text;
  return out.replace(/\n{3,}/g, (gap: string, at: number) => (code(at) ? gap : "\n\n"));
}
