// A model's reasoning written into a markdown transcript as markup: the scratchpad, not conversation.

/**
 * Reasoning blocks as clients write them: aider's `<thinking-content-HASH>` and its pretty `► **THINKING**` /
 * `► **ANSWER**` pair, the `<think>`/`<thinking>`/`<reasoning>` tags models emit, and an export's collapsed
 * `<details>` whose summary names reasoning or thinking.
 */
const CLOSED_BLOCKS: RegExp[] = [
  /<(thinking-content-[0-9a-f]+|think|thinking|reasoning)>[\s\S]*?<\/\1>/g,
  /^-{3,}\s*\n► \*\*THINKING\*\*[\s\S]*?^-{3,}\s*\n► \*\*ANSWER\*\*[ \t]*$/gm,
  /<details>\s*<summary>[^<\n]*\b(?:[Rr]easoning|[Tt]hinking|[Tt]hought)s?\b[^<\n]*<\/summary>[\s\S]*?<\/details>/g,
];
/** A tag left open (a reply cut off while the model was still thinking): the tag goes, the words stay. */
const STRAY_TAG =
  /<\/?(?:thinking-content-[0-9a-f]+|think|thinking|reasoning)>|^► \*\*(?:THINKING|ANSWER)\*\*[ \t]*$/gm;

/** `text` without its reasoning blocks; the reply the person saw is what is left. */
export function withoutReasoning(text: string): string {
  let out = text;
  for (const re of CLOSED_BLOCKS) out = out.replace(re, "");
  return out.replace(STRAY_TAG, "").replace(/\n{3,}/g, "\n\n");
}
