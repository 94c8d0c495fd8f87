// Functional segmentation: each sentence of a turn gets one of the seven categories and a confidence.
// Tuned for recall on COMMITMENT (a user constraint or an agent promise lost is the costliest error).
import type { Turn } from "../transcript/schema.js";
import type { Category, Segment } from "./schema.js";

const USER_COMMIT =
  /\b(must|never|always|don'?t|do not|should(?:n'?t)?|need(?:s)? to|make sure|ensure|only|instead|without|keep|avoid|stop|please|required?|has to|have to|not allowed|no more|remove|revert|use)\b/i;
const AGENT_PROMISE =
  /\b(I will|I'll|I am going to|I'm going to|I promise|I guarantee|we will|we'll|from now on|going forward)\b/i;
const TRIVIAL_PROMISE =
  /\b(I'll|I will) (check|look|start|read|open|run|search|take a look|examine|inspect|now|first|also)\b/i;
const PREFERENCE =
  /\b(I prefer|I'd prefer|I'd rather|I like|I love|I hate|I don'?t like|my preference|prefer(?:ably)?|rather than)\b/i;
const PERFORMANCE = /\b\d+(?:\.\d+)?\s*(?:%|ms|s|sec|seconds|minutes|MB|KB|GB|tests?|passed|failed|files?|lines?)\b/i;
const FAILURE =
  /\b([A-Z]\w*(?:Error|Exception)|Traceback|failed|failing|fails|error|crash(?:es|ed)?|broken|does not work|doesn'?t work|not working|panic)\b/i;
const LEARNING =
  /\b(turns out|it seems|I (?:see|found|noticed|learned)|the (?:root )?cause|because|so the|which means|this means|apparently|the issue (?:is|was)|the problem (?:is|was))\b/i;
const REASONING =
  /\b(decided|decision|instead of|chose|choose|going with|approach|option|trade-?off|let me think|first,|then,|plan)\b/i;

/** The sentences the segmenter classifies: fenced code removed, split at sentence ends and line breaks. */
export function sentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 3);
}

/** The category of one sentence said by `role`, with a confidence. */
export function classify(text: string, role: string): { category: Category; confidence: number } {
  if (role === "user") {
    if (PREFERENCE.test(text)) return { category: "PREFERENCE", confidence: 0.75 };
    if (USER_COMMIT.test(text)) return { category: "COMMITMENT", confidence: 0.8 };
    if (FAILURE.test(text)) return { category: "FAILURE", confidence: 0.7 };
    if (PERFORMANCE.test(text)) return { category: "PERFORMANCE", confidence: 0.6 };
    // What the user asks for is a commitment of the session even without a modal verb.
    if (
      /^(can|could|would|will) you\b|^(please\s+)?(add|fix|make|change|update|create|implement|write|move|rename|delete|remove|build|run|test)\b/i.test(
        text,
      )
    ) {
      return { category: "COMMITMENT", confidence: 0.65 };
    }
    return { category: "BACKGROUND", confidence: 0.5 };
  }
  if (role === "tool") {
    if (FAILURE.test(text)) return { category: "FAILURE", confidence: 0.8 };
    if (PERFORMANCE.test(text)) return { category: "PERFORMANCE", confidence: 0.7 };
    return { category: "BACKGROUND", confidence: 0.6 };
  }
  if (AGENT_PROMISE.test(text) && !TRIVIAL_PROMISE.test(text)) return { category: "COMMITMENT", confidence: 0.6 };
  if (FAILURE.test(text) && /\b([A-Z]\w*(?:Error|Exception)|failed|fails)\b/.test(text))
    return { category: "FAILURE", confidence: 0.6 };
  if (PERFORMANCE.test(text) && /\b(passed|failed|ms|seconds|%|MB)\b/i.test(text))
    return { category: "PERFORMANCE", confidence: 0.6 };
  if (LEARNING.test(text)) return { category: "LEARNING", confidence: 0.55 };
  if (PREFERENCE.test(text)) return { category: "PREFERENCE", confidence: 0.4 };
  if (REASONING.test(text)) return { category: "REASONING", confidence: 0.5 };
  return { category: "BACKGROUND", confidence: 0.5 };
}

/** Segments one message's text (the unit the labelled set and `memcards eval segment` use). */
export function segmentText(text: string, role: string): { text: string; category: Category; confidence: number }[] {
  return sentences(text).map((s) => ({ text: s, ...classify(s, role) }));
}

/** Segments the conversational turns of a span (sidechains and injected instructions are not the user). */
export function segmentTurns(turns: readonly Turn[]): Segment[] {
  const out: Segment[] = [];
  for (const t of turns) {
    if (t.kind !== "message" || t.sidechain) continue;
    if (t.role === "user" || t.role === "assistant") {
      for (const s of sentences(t.text)) out.push({ turn: t.id, role: t.role, text: s, ...classify(s, t.role) });
    }
  }
  return out;
}
