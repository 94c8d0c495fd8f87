// Functional segmentation: each sentence of a turn gets one of the seven categories and a confidence.
// Tuned for recall on commitment (a user constraint or an agent promise lost is the costliest error).
import type { Turn } from "../conversation/schema.js";
import type { MemoryCategory } from "../vocab.js";
import type { Segment } from "./schema.js";

const USER_COMMIT =
  /\b(must|never|always|don'?t|do not|should(?:n'?t)?|need(?:s)? to|make sure|ensure|only|instead|without|keep|avoid|stop|please|required?|has to|have to|not allowed|no more|remove|revert|use)\b/i;
const AGENT_PROMISE =
  /\b(I will|I'll|I am going to|I'm going to|I promise|I guarantee|we will|we'll|from now on|going forward)\b/i;
/** What turns an agent's "I'll …" from a plan into a promise about the result. */
const GUARANTEE =
  /\b(keep|make sure|ensure|guarantee|never|always|won'?t|will not|preserv|backward|compatib|from now on|going forward|promise|without (?:breaking|changing))/i;
const PREFERENCE =
  /\b(I prefer|I'd prefer|I'd rather|I like|I love|I hate|I don'?t like|my preference|prefer(?:ably)?|rather than)\b/i;
const PERFORMANCE = /\b\d+(?:\.\d+)?\s*(?:%|ms|s|sec|seconds|minutes|MB|KB|GB|tests?|passed|failed|files?|lines?)\b/i;
const FAILURE =
  /\b([A-Z]\w*(?:Error|Exception)|Traceback|failed|failing|fails|error|crash(?:es|ed)?|broken|does not work|doesn'?t work|not working|panic)\b/i;
const LEARNING =
  /\b(turns out|it seems|I (?:see|found|noticed|learned)|the (?:root )?cause|because|so the|which means|this means|apparently|the issue (?:is|was)|the problem (?:is|was))\b/i;
const REASONING =
  /\b(decided|decision|instead of|chose|choose|going with|approach|option|trade-?off|let me think|plan)\b|\b(?:first|then|next),/i;

/** The sentences the segmenter classifies: fenced code removed, split at sentence ends and line breaks. */
export function sentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 3);
}

/** Verbs a user starts an instruction with ("add …", "also check …", "then update … and push"). */
export const IMPERATIVE =
  /^(?:(?:ok(?:ay)?|so|and|also|then|now|just|pls|please|bruh|great|nice|cool|alright|next|finally|first)[,!.]?\s+)*(add|make|check|write|insert|fix|create|remove|update|move|rename|delete|run|use|ensure|give|implement|change|refactor|clean|prune|test|build|push|commit|merge|deploy|install|set|put|replace|convert|split|analy[sz]e|explain|tell|show|help|understand|apply|resolve|review|keep|stop|try|go|do(?!\s+(?:we|you|i|they|it|these|those)\b)|don'?t|continue|modify|improve|integrate|generate|document|include|exclude|adjust|handle|revert|undo(?!\s+itself)|open|close|start|finish|wire|port|migrate|switch|enable|disable|allow|limit|increase|decrease|sort|format|lint|debug|investigate|look|find|search|read|get|let'?s|lets|send|call|return|print|log|save|load|store|fetch|upload|download|drop|skip|ignore|hide|display|render|rewrite|simplify|optimi[sz]e|reduce|extend|support|avoid|verify|validate|compare|mock|stub|bump|upgrade|downgrade|pin|publish|release|tag|ship|land|cherry-pick|rebase|squash|stash|reset|restore|retry|rerun|repeat|redo|copy|paste|extract|inline|wrap|unwrap|expose|export|import|declare|define|describe|list|count|measure|benchmark|profile|trace|monitor|watch|schedule|configure|setup|init|initiali[sz]e|bootstrap|scaffold|design|plan|draft|propose|suggest|summari[sz]e|answer|reply|respond|post|comment|address|tackle|solve|finish|complete)\b/i;
const USER_WANTS =
  /\b(I want|I need|I'd like|I would like|we need|we want|we should|I don'?t want|let'?s|lets|is there a way to|how can (?:I|we) (?:make|add|get|have|change|set)|you'?re going to|your task|go ahead)\b|^\s*(?:\/[a-z][\w-]*|\[\$[\w-]+\])/i;
const STRONG_COMMIT =
  /\b(must|never|always|don'?t|do not|make sure|ensure|need(?:s)? to|has to|have to|should(?:n'?t)?|not allowed|no more|on your own)\b/i;
const PLEASANTRY =
  /^(thanks?|thank you|ok(?:ay)?|great|nice|cool|perfect|awesome|yes|no|yep|nope|sure|good|lgtm)\b[\s!.]*$/i;
const INFO_QUESTION =
  /^(what|why|where|who|which|when|whats|what's|how (?:do|does|did|is|are|many|much)|is|are|was|were|do|does|did|has|have)\b[^?]*\?*$/i;
const LOG_LINE =
  /^([A-Za-z]:\\|\/[\w.-]+\/|FAIL\s|\s*\d+\s*\||\s*at\s|\s*File "|Traceback|\d{4}-\d\d-\d\d[ T]\d\d:|\[(?:INFO|ERROR|WARN|DEBUG)\]|(?:fail|info|warn|error|dbug|crit):\s|npm ERR!|\$ |[A-Z]\w*(?:Error|Exception)\b)/;

/**
 * A user's sentence. Nearly everything a user says to a coding agent binds it, so commitment is the default
 * for instructions, requests and wishes; pasted logs and errors are failure, plain questions and thanks background.
 */
function classifyUser(text: string): { category: MemoryCategory; confidence: number } {
  const t = text.trim();
  if (PREFERENCE.test(t) && !/\b(must|never|always|don'?t|do not)\b/i.test(t))
    return { category: "preference", confidence: 0.7 };
  if (LOG_LINE.test(t)) return { category: "failure", confidence: 0.8 };
  const lead = t.replace(/^(?:https?:\/\/\S+|@\S+)\s+/, "");
  if (
    IMPERATIVE.test(lead) ||
    (USER_WANTS.test(lead) && !/^(do|does|did)\b/i.test(lead)) ||
    /^(can|could|would|will) (you|we)\b/i.test(lead)
  )
    return { category: "commitment", confidence: 0.8 };
  if (STRONG_COMMIT.test(t) && !INFO_QUESTION.test(t)) return { category: "commitment", confidence: 0.75 };
  if (FAILURE.test(t)) return { category: "failure", confidence: 0.7 };
  if (USER_COMMIT.test(t) && !INFO_QUESTION.test(t)) return { category: "commitment", confidence: 0.6 };
  if (PLEASANTRY.test(t)) return { category: "background", confidence: 0.8 };
  if (PERFORMANCE.test(t)) return { category: "performance", confidence: 0.6 };
  if (INFO_QUESTION.test(t) || t.endsWith("?")) return { category: "background", confidence: 0.6 };
  return { category: "background", confidence: 0.5 };
}

/** The category of one sentence said by `role`, with a confidence. */
export function classify(text: string, role: string): { category: MemoryCategory; confidence: number } {
  if (role === "user") return classifyUser(text);
  if (role === "tool") {
    if (FAILURE.test(text)) return { category: "failure", confidence: 0.8 };
    if (PERFORMANCE.test(text)) return { category: "performance", confidence: 0.7 };
    return { category: "background", confidence: 0.6 };
  }
  if (AGENT_PROMISE.test(text) && GUARANTEE.test(text)) return { category: "commitment", confidence: 0.7 };
  if (AGENT_PROMISE.test(text) || /^(now|next|then|first)?,?\s*(let me|let's|I need to|I should)\b/i.test(text))
    return { category: "reasoning", confidence: 0.6 };
  if (FAILURE.test(text) && /\b([A-Z]\w*(?:Error|Exception)|failed|fails)\b/.test(text))
    return { category: "failure", confidence: 0.6 };
  if (PERFORMANCE.test(text) && /\b(passed|failed|ms|seconds|%|MB)\b/i.test(text))
    return { category: "performance", confidence: 0.6 };
  if (LEARNING.test(text)) return { category: "learning", confidence: 0.55 };
  if (PREFERENCE.test(text)) return { category: "preference", confidence: 0.4 };
  if (REASONING.test(text)) return { category: "reasoning", confidence: 0.5 };
  return { category: "background", confidence: 0.5 };
}

/** Segments one message's text (the unit the labelled set and `memcards eval segment` use). */
export function segmentText(
  text: string,
  role: string,
): { text: string; category: MemoryCategory; confidence: number; also: MemoryCategory[] }[] {
  return sentences(text).map((s) => {
    const c = classify(s, role);
    return { text: s, ...c, also: secondary(s, role).filter((x) => x !== c.category) };
  });
}

const FAILURE_TOPIC =
  /\b(issue|problem|error|fail\w*|bug|broken|stall\w*|crash\w*|hang\w*|mismatch|malformed|wrong|warning|doesn'?t (?:work|appear|show)|not (?:working|showing|appearing)|still (?:doing|getting|fail\w*|broken)|no such file|not found|timeout|timed out|exception)\b/i;
const CAUSE =
  /\b(because|root cause|the (?:issue|problem|error|failure) (?:is|was)|is caused|caused by|due to|which means|this means|turns out|so the|exposed|confirmed)\b/i;
const AGENT_ACTION =
  /\b(I'?m|I am|we'?re|I'?ll|I will|we'?ll|let me|let's|we need to|to (?:resolve|fix|address) this|then I)\b|\bnext,/i;

/**
 * Other categories a sentence also carries, for turn-level labelling: "The CI failure is a type mismatch in
 * the new route" is a failure and a learning. Distillation keeps one category per sentence.
 */
export function secondary(text: string, role: string): MemoryCategory[] {
  const out: MemoryCategory[] = [];
  if (FAILURE_TOPIC.test(text) || FAILURE.test(text)) out.push("failure");
  if (role === "assistant" && CAUSE.test(text)) out.push("learning");
  if (role === "assistant" && (AGENT_ACTION.test(text) || REASONING.test(text))) out.push("reasoning");
  return out;
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
