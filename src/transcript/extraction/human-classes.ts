// What a person's turn is: a standing instruction, a one-off request, an answer, a problem report, chit-chat,
// pasted material, or not the person's at all. A multinomial logistic regression over the turn's words, word pairs,
// a few structure features (length, lines, code, paths, a question mark, the parser's turn kind) and the cues of its
// sentences (generality markers, modal verbs, reminders, negated openings, the second person, questions) and the
// parts of a firm rule (its shape, its opening word, a concrete target, an imperative at a target, a short rule),
// fitted on labelled turns by `scripts/fit-human-classes.mjs` (procedure in bench/summary/fit-human.ts); its weights
// are human-weights.json. One feature's weight is set rather than fitted (`PRIOR_FEATURE`, a short firm rule said
// nearly on its own), since the development turns hold almost none. A message is a standing instruction when the
// model gives it the threshold the fit chose for precision; its rule sentences (a second, binary model, the rule
// shape first) are kept whole. `ruleFeatures` are the features of a sentence-level model of standing rules that
// bench/summary/fit-rules.ts fits and cross-validates as a measurement (it decides nothing here).
import { FIRM_CUES } from "../rendering/clip.js";
import { humanPart } from "./human.js";
import weights from "./human-weights.json" with { type: "json" };

export const HUMAN_CLASSES = [
  "instruction",
  "request",
  "answer",
  "problem",
  "chitchat",
  "pasted",
  "not_human",
] as const;
export type HumanClass = (typeof HUMAN_CLASSES)[number];

/** A fitted softmax model: per feature one weight per class, and the class biases. */
export interface SoftmaxModel {
  classes: string[];
  bias: number[];
  weights: Record<string, number[]>;
}

/** A fitted binary model: per feature one weight. */
export interface BinaryModel {
  bias: number;
  weights: Record<string, number>;
}

export interface HumanWeights {
  turn: SoftmaxModel;
  /**
   * A person's message is a standing instruction when the turn model gives `instruction` this probability or more
   * (chosen by cross-validation for precision).
   */
  instruction_threshold: number;
  sentence: BinaryModel;
  /** An instruction turn's rule sentences: those at this probability or more (chosen by cross-validated F1). */
  sentence_threshold: number;
}

const MAX_CHARS = 4000;

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}][\p{L}\p{N}'’]*|\d+/gu) ?? [];

const bucket = (n: number): number => (n <= 0 ? 0 : Math.min(12, Math.floor(Math.log2(n + 1))));

/**
 * Kinds of words a standing rule is said with, each one feature whose weight is fitted: markers of generality
 * (always, every time), modal verbs, reminders, a negated or conditional opening, a restriction (only), a stated
 * want, the second person, and the opposite kinds (a question's opening, thanks, the past tense).
 */
const CUES: Record<string, RegExp> = {
  general:
    /\b(?:always|never|ever|every ?time|each time|whenever|from now on|going forward|in (?:the )?future|throughout|at all times|as we (?:go|progress|make)|any(?:thing|where|more)?|all)\b/i,
  modal: /\b(?:should|must|shall|needs? to|ha(?:ve|s) to|make sure|ensure|remember|keep|avoid|only)\b/i,
  remind: /\b(?:remember|remeber|keep in mind|don'?t forget|make sure|ensure)\b/i,
  keepstate:
    /\bkeep\b.{0,40}\b(?:updated|up to date|in sync|consistent|the same|minimal|to the minimum|clean|short|simple)\b/i,
  neg: /\b(?:not|no|don'?t|do not|never|without|nothing)\b|n[’']t\b/i,
  negopen: /^(?:please\s+)?(?:don'?t|do not|never|no|avoid|stop)\b/i,
  only: /\b(?:only|just)\s+(?:want|use|need|test|edit|modify|change)\b|\bonly\b/i,
  eachtime: /\b(?:each|every)\s+(?:time|change|commit|step|file|edit)\b|\bwhenever\b|\bafter (?:each|every)\b/i,
  cond: /^(?:if|when|whenever|before|after|once|unless)\b/i,
  want: /\b(?:i|we) (?:want|would like|'d like|prefer|need|hate|like|expect)\b|\bi (?:don'?t|do not) (?:want|like)\b/i,
  you: /\b(?:you|your)\b/i,
  please: /\bplease\b/i,
  we: /\b(?:we|let'?s|us)\b/i,
  ask: /^(?:can|could|would|will|do|does|did|is|are|what|why|how|where|which|who|when)\b/i,
  past: /\b(?:was|were|did|had|got|worked|failed|broke)\b/i,
  thanks: /\b(?:thanks|thank you|great|nice|cool|ok|okay|yes|yup|sure|perfect)\b/i,
  heading: /:\s*$/,
};

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
const CJK_ALL = /[^\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g;

/** Word, word-pair and structure features of a text (present or not). */
function textFeatures(text: string): Set<string> {
  const t = text.slice(0, MAX_CHARS);
  const ws = words(t);
  const out = new Set<string>();
  for (const w of ws) out.add(`w:${w}`);
  for (let i = 0; i + 1 < ws.length && i < 400; i++) out.add(`b:${ws[i]}_${ws[i + 1]}`);
  if (ws[0]) out.add(`first:${ws[0]}`);
  out.add(`len:${bucket(text.length)}`);
  out.add(`lines:${bucket(text.split("\n").length)}`);
  out.add(`words:${bucket(ws.length)}`);
  if (/```|^\s{4}\S/m.test(t)) out.add("s:code");
  if ((t.match(/[{};=<>()[\]]/g)?.length ?? 0) > t.length / 25) out.add("s:symbols");
  if (/https?:\/\//.test(t)) out.add("s:url");
  if (/[\w-]+\/[\w./-]+|\b[\w-]+\.(?:[jt]sx?|py|md|json|cs|java|go|rs|rb|php|al|sh|yml|yaml|toml|html|css)\b/.test(t))
    out.add("s:path");
  if (/\?\s*$/.test(t.trim()) || /\?\s/.test(t)) out.add("s:question");
  if (/^\s*\//.test(t)) out.add("s:slash");
  if (/<\/?[a-z_-]+>/i.test(t)) out.add("s:tag");
  if (/^\s*(?:[-*]|\d+[.)])\s/m.test(t)) out.add("s:list");
  if (/\b(?:Error|Exception|Traceback)\b|\berror\b:/.test(t)) out.add("s:error");
  if (CJK.test(t)) {
    const c = t.replace(CJK_ALL, "");
    for (let i = 0; i + 1 < c.length && i < 400; i++) out.add(`c2:${c.slice(i, i + 2)}`);
  }
  return out;
}

/**
 * The shape of a firm rule, as one feature: a directive that opens with always/never/don't/make sure/avoid/only/
 * keep/stop (after a condition, a please or a connective, in any clause), says that someone or something must or
 * should (not) do a thing, holds from now on, or fixes a means ("use X, not Y"); not a question, a hedge or a
 * heading. The same shape the memory's rule units were read by.
 */
const RULE_OPENING =
  /^(?:[\w-]+(?:\s+\d+)?:\s+)?(?:(?:if|when|whenever|before|after|once|unless)\b[^,]{1,80},\s*)?(?:(?:please|and|also|but|so|then|again|remember(?: to)?|note|important)[,:!]?\s+)*(?:always|never|don'?t|do not|make sure|ensure|avoid|only|keep|stop|no more|no longer|under no circumstances)\b/i;
export const RULE_MODAL =
  /\b(?:you|we|it|this|that|they|he|she|everything|all [\w-]+|the [\w-]+|each [\w-]+|every [\w-]+)\s+(?:must|should|shall|need to|has to|have to)(?:\s+not|n'?t)?\s+(?:always\s+|never\s+|only\s+)?\w+/i;
export const RULE_STANDING =
  /\bfrom now on\b|\bgoing forward\b|(?<!\b(?:any|the|a|all|some|no)\s)\bmust(?:n'?t| not)?\b(?!-)|\bI (?:don'?t|do not) want\b/i;
export const RULE_USE =
  /^(?:please\s+)?(?:use|prefer)\b(?=.*\b(?:don'?t|do not|not|never|only|instead|always|rather than)\b)/i;
/** A question (a "when" with no auxiliary after it opens a condition, not a question). */
export const RULE_QUESTION =
  /\?\s*$|^(?:what|why|how|where|which|who|when(?=\s+(?:is|are|was|were|will|would|do|does|did|should|shall|can|could|has|have|had|may|might|must)\b)|can|could|would|is|are|do(?!\s+not\b|n'?t\b)|does|did)\b/i;
export const RULE_HEDGE =
  /^(?:I'?m not sure|I (?:think|guess|wonder|don'?t know)|maybe|perhaps|not sure|(?:don'?t|do not|never) ?mind)\b/i;

/** Words that make what follows hold from now on: as firm as "always", though none of the firm cues. */
const FROM_NOW = /\b(?:from now on|going forward)\b/i;
/** A limit set on what the agent may do (`you can only enter one command at a time`, `you cannot use vim`), not
 * inside a condition (`if you can't find it, …`). */
const RULE_LIMIT =
  /(?<!\b(?:if|when|unless|whether|as|so)\s)\b(?:you|we) (?:can only|cannot|can['’]?t|may not|may only|are not allowed to|aren['’]t allowed to)\s+\w/i;

/** A request to be told something (`I also want to know what we have to do to …`), not a rule. */
const ASKS_TO_KNOW =
  /^(?:(?:also|and|but|so)\s+)?(?:I|we)(?: also)? (?:want|would like|['’]d like|need) to (?:know|understand|see|learn|find out)\b|^(?:please\s+)?(?:tell|show|explain(?: to)?) (?:me|us)\b/i;

function ruleShaped(s: string): boolean {
  if (s.length < 15 || s.length > 600 || s.endsWith(":")) return false;
  if (!(FIRM_CUES.test(s) || FROM_NOW.test(s) || RULE_LIMIT.test(s))) return false;
  if (RULE_QUESTION.test(s) || RULE_HEDGE.test(s) || ASKS_TO_KNOW.test(s)) return false;
  const clauses = [s, ...s.split(/,\s*(?:but|and)\s+|;\s*/).slice(1)];
  return (
    clauses.some((c) => RULE_OPENING.test(c)) ||
    RULE_MODAL.test(s) ||
    RULE_STANDING.test(s) ||
    RULE_USE.test(s) ||
    RULE_LIMIT.test(s)
  );
}

/** What may stand before a rule's first word: a label (`Step 2:`), a condition, a please, a connective, a reminder. */
const LEAD =
  /^(?:[\w-]+(?:\s+\d+)?:\s+)?(?:(?:if|when|whenever|before|after|once|unless)\b[^,]{1,80},\s*)?(?:(?:please|and|also|but|so|then|again|remember(?: to)?|note|important)[,:!]?\s+)*/i;
/** A rule's opening words, each its own feature (`g:open_<name>`) when a verb or a bare word follows. */
const OPENINGS: [string, RegExp][] = [
  ["never", /^never\s+\w/i],
  ["always", /^always\s+\w/i],
  ["dont", /^(?:don'?t|do not)\s+\w/i],
  ["makesure", /^(?:make sure|ensure)\s+\w/i],
  ["fromnow", /^(?:from now on|going forward)\b/i],
  ["only", /^only\s+\w/i],
  ["avoid", /^(?:avoid|stop|no more|no longer)\s+\w/i],
  ["keep", /^keep\s+\w/i],
];
/** A concrete target: a path, a file name, a code identifier (camelCase, snake_case, dotted) or code in backticks. */
const TARGET =
  /[\w-]+\/[\w./-]+|\b[\w-]+\.(?:[jt]sx?|py|md|json|cs|java|go|rs|rb|php|al|sh|yml|yaml|toml|html|css|lock|env|sql|txt)\b|\b[a-z]+[A-Z]\w*\b|\b[a-z]+_[a-z_]+\b|`[^`]+`/;
/** An imperative's verb: what a person tells an agent to do (or not do) to a file or a name. */
const IMPERATIVE =
  /^(?:edit|change|touch|modify|use|add|remove|delete|rename|run|commit|push|write|update|call|import|put|follow|move|test|format|keep|leave|skip|mock|log|print)\b/i;

/**
 * The cue features of one sentence, and the parts of a firm rule as features of their own, each weighed by the
 * fit: the rule shape as a whole (`g:ruleshape`), its opening word (`g:open_*`), a concrete target (`g:target`), an
 * imperative aimed at a target (`g:imp_target`), a rule aimed at a target (`g:rule_target`) and a short rule
 * (`g:rule_short`, at most 16 words).
 */
function cueFeatures(sentence: string, out: Set<string>): void {
  for (const [name, re] of Object.entries(CUES)) if (re.test(sentence)) out.add(`g:${name}`);
  const shaped = ruleShaped(sentence);
  const target = TARGET.test(sentence);
  const body = sentence.replace(LEAD, "");
  const question = RULE_QUESTION.test(sentence);
  if (!question) for (const [name, re] of OPENINGS) if (re.test(body)) out.add(`g:open_${name}`);
  if (target) out.add("g:target");
  const verb = body.replace(/^(?:always|never|don'?t|do not|only|make sure to|make sure you)\s+/i, "");
  if (target && !question && IMPERATIVE.test(verb)) out.add("g:imp_target");
  if (shaped) {
    out.add("g:ruleshape");
    if (target) out.add("g:rule_target");
    if (words(sentence).length <= 16) out.add("g:rule_short");
  }
}

/** What a turn says to the agent: the person's words and a harness's standing instructions, injected blocks out. */
const spokenText = (text: string): string => humanPart(text, { keepHarness: true }).text;

/** The sentences a turn says to the agent (fenced code left out). */
export function ownSentences(text: string): string[] {
  return splitSentences(spokenText(text).replace(/```[\s\S]*?(```|$)/g, " "));
}

/**
 * Features of a turn: its text's features, the parser's kind of turn, and the cues and first words of the
 * person's sentences in it.
 */
export function turnFeatures(text: string, kind: string): Set<string> {
  const f = textFeatures(text);
  f.add(`kind:${kind}`);
  const ss = ownSentences(text).slice(0, 200);
  for (const s of ss) {
    cueFeatures(s, f);
    const w = words(s)[0];
    if (w) f.add(`first:${w}`);
  }
  // A rule said on its own or nearly (at most three sentences), the shape a standing instruction is often typed in.
  if (ss.length <= 3 && ss.some(ruleShaped)) f.add("t:rule_few");
  // A clause after a semicolon counts as said on its own ("Keep the mutex in Store; do not switch to sync.Map.").
  if (ss.length <= 3 && ss.some((s) => s.split(/;\s+/).some(shortFirmRule))) f.add(PRIOR_FEATURE);
  return f;
}

/**
 * The one feature whose weight is set, not fitted: a turn of at most three sentences, one of them a short firm rule
 * (at most 16 words, of the rule shape, opening with never/always/don't/do not/make sure/only, itself or in a clause
 * after ", but" / ", and" / ";", or aimed at a path or identifier). The development turns hold almost none ("never" opens no labelled turn), so the fit cannot learn
 * what such a sentence is; the fit holds its instruction weight at `PRIOR_WEIGHT` (its other classes at 0) and
 * weighs every other feature around it, and the threshold is chosen with it in place.
 */
export const PRIOR_FEATURE = "prior:short_firm_rule";
/** The prior's instruction weight: the log-odds of a standing instruction it adds. */
export const PRIOR_WEIGHT = 5;

function shortFirmRule(s: string): boolean {
  if (!ruleShaped(s) || words(s).length > 16) return false;
  // The rule may be the clause after the request it qualifies: "Fix it, but do not change the public API."
  const bodies = [s, ...s.split(/,\s*(?:but|and)\s+|;\s*/).slice(1)].map((c) => c.replace(LEAD, ""));
  return TARGET.test(s) || OPENINGS.slice(0, 6).some(([, re]) => bodies.some((b) => re.test(b)));
}

/** Where a sentence stands in its turn: its place, how many sentences and characters the turn has. */
export interface SentenceContext {
  position: number;
  sentences: number;
  turnChars: number;
}

/** Features of a sentence inside a turn: its words, cues and shape, and where it stands in the turn. */
export function sentenceFeatures(sentence: string, ctx?: SentenceContext): Set<string> {
  const f = textFeatures(sentence);
  cueFeatures(sentence, f);
  const ws = words(sentence);
  if (ws[1]) f.add(`first2:${ws[0]}_${ws[1]}`);
  if (/\?\s*$/.test(sentence)) f.add("s:endq");
  if (/!\s*$/.test(sentence)) f.add("s:endbang");
  if (/^\s*(?:[-*•]|\d+[.)])\s/.test(sentence)) f.add("s:bullet");
  if (/\b[A-Z]{3,}\b.*\b[A-Z]{2,}\b/.test(sentence)) f.add("s:caps");
  if (ctx) {
    f.add(`pos:${ctx.position === 0 ? "first" : ctx.position === ctx.sentences - 1 ? "last" : "mid"}`);
    f.add(`tsent:${bucket(ctx.sentences)}`);
    f.add(`tlen:${bucket(ctx.turnChars)}`);
  }
  return f;
}

/** Each sentence of a turn with its features. */
export function turnSentences(text: string): { sentence: string; feats: Set<string> }[] {
  const ss = ownSentences(text);
  const turnChars = spokenText(text).length;
  return ss.map((sentence, position) => ({
    sentence,
    feats: sentenceFeatures(sentence, { position, sentences: ss.length, turnChars }),
  }));
}

/** Class probabilities of a softmax model for a feature set. */
export function softmax(model: SoftmaxModel, feats: Iterable<string>): number[] {
  const z = [...model.bias];
  for (const f of feats) {
    const w = model.weights[f];
    if (w) for (let k = 0; k < z.length; k++) z[k]! += w[k]!;
  }
  const m = Math.max(...z);
  const e = z.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/** Probability of a binary model for a feature set. */
export function logistic(model: BinaryModel, feats: Iterable<string>): number {
  let z = model.bias;
  for (const f of feats) z += model.weights[f] ?? 0;
  return 1 / (1 + Math.exp(-z));
}

const NOT_PERSONS = new Set(["not_human", "pasted"]);

/**
 * A turn's class from the turn model's probabilities: `instruction` when the turn is a person's message (the
 * parser's kind), pasted and not-the-person's together stay under one half, and the model gives instruction
 * `threshold` or more; otherwise the likeliest class other than instruction.
 */
export function decideTurn(p: readonly number[], kind: string, threshold: number): string {
  const order = p.map((x, i) => [x, i] as const).sort((a, b) => b[0] - a[0]);
  const other = HUMAN_CLASSES[order.find(([, i]) => HUMAN_CLASSES[i] !== "instruction")![1]]!;
  const notPerson = HUMAN_CLASSES.reduce((a, c, i) => a + (NOT_PERSONS.has(c) ? p[i]! : 0), 0);
  if (kind !== "message" || notPerson >= 0.5) return other;
  return p[0]! >= threshold ? "instruction" : other;
}

const W = weights as HumanWeights;

/** The classes of a turn that ask for work: a standing instruction, a one-off request, a problem to fix. */
const ASKING = new Set<HumanClass>(["instruction", "request", "problem"]);

/**
 * How likely the turn model finds it that a person's turn asks for work: its probabilities of instruction, request
 * and problem together. A turn whose own words ask for work, but that the classifier calls pasted because of what
 * it also carries (a link to the issue, a quoted block), still asks when these together are the larger part.
 */
export function askingProbability(text: string, kind = "message"): number {
  const p = softmax(W.turn, turnFeatures(text, kind));
  return HUMAN_CLASSES.reduce((a, c, i) => a + (ASKING.has(c) ? p[i]! : 0), 0);
}

/**
 * A client's own commands that manage the chat or run a shell command for the person (aider's `/run`, `/add`,
 * `/test`, Claude Code's `/clear`, `/compact`): typing one asks the client, not the agent, for work. A command of a
 * skill or of the project (`/implement S5`, `/resolve-reviews on …`) names the task and is not one of these.
 */
const CLIENT_COMMAND =
  /^\/(?:run|test|lint|git|add|drop|read-only|ls|clear|reset|tokens|undo|diff|model|models|map|map-refresh|help|exit|quit|compact|cost|config|login|logout|status|settings|voice|paste|copy|save|load|commit|editor|multiline-mode|chat-mode|web|resume|permissions|memory|doctor|vim|mcp|hooks|ide)(?:\s|$)/i;
/** A command of a skill or of the project, with or without arguments: it names the task. */
const SKILL_COMMAND = /^\/[\w:-]+(?:\s|$)/;
/** What names something rather than says something: an @mention, a link, a path, a file name, code in backquotes. */
const NAMES = /@[\w./-]+|https?:\/\/\S+|`[^`]*`|(?:~|\.{1,2})?(?:[\w.-]*\/)+[\w.-]*|\b[\w-]+\.[a-z][a-z0-9]{0,4}\b/gi;

/** Letters of scripts written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Burmese). */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]+/gu;

/** Words in `text`: a run of two letters or digits or more, and in a script written without spaces, each two letters
 * (`继续` is one word, `修复登录页面的错误` five). */
function wordCount(text: string): number {
  let n = 0;
  for (const run of text.match(UNSPACED) ?? []) n += Math.ceil(run.length / 2);
  return n + (text.replace(UNSPACED, " ").match(/[\p{L}\p{N}]{2,}/gu) ?? []).length;
}

/**
 * A message that says nothing of what the work is: a client command (`/run uv sync`), at most one word
 * (`hi`, `test`, `continue`, `继续`), or names alone (`@src/app.ts`, a link alone). A word beside a name asks
 * something of it (`fix <link to the issue>`, `refactor src/app.ts`). What a session is for is not in a throwaway
 * message; its first message of substance, or the title, says it.
 */
export function throwawayMessage(text: string): boolean {
  const t = text.trim();
  if (CLIENT_COMMAND.test(t)) return true;
  if (SKILL_COMMAND.test(t)) return false;
  const rest = t.replace(NAMES, " ");
  return wordCount(rest) <= (rest === t ? 1 : 0);
}

/** The class of a person's turn (`kind` is the parser's: message or meta). */
export function classifyTurn(text: string, kind = "message"): HumanClass {
  const p = softmax(W.turn, turnFeatures(text, kind));
  return decideTurn(p, kind, W.instruction_threshold) as HumanClass;
}

/** Abbreviations whose full stop ends no sentence: `(e.g. python, vim)` stays one sentence with what it qualifies. */
const NOT_AN_END = /(?<!\b(?:e\.g|i\.e|vs|cf|approx|incl|Mr|Mrs|Ms|Dr)\.)/;

/** Sentences end at . ! ? followed by space (not after an abbreviation), or at a line break; list bullets are kept
 * with their sentence. */
export function splitSentences(text: string): string[] {
  return text
    .split(new RegExp(`(?<=[.!?])${NOT_AN_END.source}\\s+|\\n+`))
    .map((s) => s.trim())
    .filter((s) => s.length > 2);
}

/** A statement of code: a call, a comparison or an assignment, or a line that opens with a statement's keyword. */
/** A line that opens as a statement of code (`print(…)`, `assert a != b`, `for x in xs:`): the keyword and some code
 * punctuation after it, so that words a person types in lower case (`from now on …`, `let the worker retry`) are not;
 * or a whole Python `from x import a, b as c` line (not `from there import the rows into …`). */
const CODE_OPENING =
  /^\s*(?:(?:print|assert|return|import|from|def|class|const|let|var|raise|throw|console\.\w+)\b[\s(](?=.*[()=[\]{};"])|(?:for|while|if|elif|else|with|try|except)\b.*:\s*$|from\s+(?:\.+[\w.]*|[\w.]+)\s+import\s+(?:\*|\(|[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*(?:\s*[,(\\])?)\s*(?:[;#].*)?$)/;
/** Code inside a line: a comparison, an assignment or a call. */
const CODE_TOKEN = /\S*[=!<>]=\S*|[\w.]+\s*=\s*[\w"'(\d-]\S*|[\w.]+\((?:[^()]*)\)/g;
/** A line with code in it is code when at most this many words of prose stand around the code. */
const PROSE_WORDS = 4;

/** A line of a pasted log or trace: it opens on a timestamp, a log level, a stack frame or a shell prompt. */
const LOG_LINE =
  /^\s*(?:\[?\d{4}-\d{2}-\d{2}\b|\[?\d{1,2}:\d{2}:\d{2}\b|\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN(?:ING)?|ERROR|FATAL|CRITICAL)\b\]?|at\s+\S+\s+\(\S*:\d+|File "[^"]+", line \d+|\$\s+\S)/;

/**
 * A sentence that is code or a log line the person pasted or quoted (`print("…")`, `assert a != b, "…"`,
 * `alpha=20, beta=0 — must escape`, `2024-01-01 WARN cache must be warmed`), not a rule said in words; code in
 * backquotes inside a sentence of words does not count.
 */
export function codeLine(sentence: string): boolean {
  if (LOG_LINE.test(sentence)) return true;
  const bare = sentence.replace(/`[^`]*`/g, " ");
  if (CODE_OPENING.test(bare)) return true;
  // A rule said in words may name a call or a setting (`Never call fetch() directly`, `build with NODE_ENV=production`).
  const prose = bare.replace(CODE_TOKEN, " ");
  return prose !== bare && (prose.match(/\b[A-Za-z]{2,}\b/g) ?? []).length <= PROSE_WORDS;
}

/**
 * Features of a sentence for the rule-sentence model, kept to kinds that carry across topics and formats: its cues
 * and the parts of a firm rule (`cueFeatures`: mood, modal verbs, negation before a verb, the second person, scope
 * words), its structure (a question, a bullet, shouting, code punctuation, a path, a link, its length), whether it is
 * code or a log line the person pasted, its place in the turn, and the turn's class from the turn model (the likeliest
 * class other than instruction, and the instruction probability in four bands), each also paired with whether the
 * turn is short (at most three sentences). No word of the sentence is a feature of its own.
 */
export function ruleFeatures(sentence: string, ctx: SentenceContext, turnP: readonly number[]): string[] {
  const f = [...sentenceFeatures(sentence, ctx)].filter((x) => RULE_FEATURE.test(x));
  if (codeLine(sentence)) f.push("s:codeline");
  f.push(`s:prose_${proseBand(sentence)}`);
  const other = turnP
    .map((p, i) => [p, i] as const)
    .filter(([, i]) => HUMAN_CLASSES[i] !== "instruction")
    .sort((x, y) => y[0] - x[0])[0]![1];
  const cls = HUMAN_CLASSES[other]!;
  const p = turnP[HUMAN_CLASSES.indexOf("instruction")]!;
  const band = INSTRUCTION_BANDS.find(([, min]) => p >= min)![0];
  const size = ctx.sentences <= SHORT_TURN ? "few" : "many";
  f.push(`tc:${cls}`, `ti:${band}`, `tc:${cls}&${size}`, `ti:${band}&${size}`);
  // The turn model calls the whole message a standing instruction (its fitted threshold).
  const decided = decideTurn(turnP, "message", W.instruction_threshold) === "instruction";
  if (decided) f.push("ti:decided", `ti:decided&${size}`);
  // The rule shape where a person asks for work: a sentence of the rule shape (or a short firm rule) in a message the
  // turn model calls an instruction, a request or a problem report, or any sentence of a short message it calls an
  // instruction.
  const firm = ruleShaped(sentence) || sentence.split(/;\s+/).some(shortFirmRule);
  if ((firm && (decided || cls === "request" || cls === "problem")) || (decided && size === "few"))
    f.push("g:asked_rule");
  if (f.includes("g:ruleshape")) f.push(`shape&tc:${cls}`, `shape&ti:${band}`, `shape&${size}`);
  // A short firm rule, itself or in a clause after a semicolon ("Keep the mutex; do not switch to sync.Map.").
  if (sentence.split(/;\s+/).some(shortFirmRule)) f.push("g:shortfirm", `g:shortfirm&${size}`);
  return f;
}

/** How much of a sentence is words of prose (lower-case words of letters, `I`, a capital opening a word): a pasted
 * line of names, numbers, versions or code has few. */
function proseBand(sentence: string): string {
  const toks = sentence.split(/\s+/).filter(Boolean);
  const prose = toks.filter((t) => /^[("'“]?(?:[a-z][a-z'’-]*|I|[A-Z][a-z'’-]+)[,.;:!?)"'”]*$/.test(t)).length;
  const share = toks.length ? prose / toks.length : 0;
  return share >= PROSE_HIGH ? "hi" : share >= PROSE_LOW ? "mid" : "lo";
}
/** Shares of prose words that part a sentence of words from a pasted line. */
const PROSE_HIGH = 0.75;
const PROSE_LOW = 0.4;

/** The sentence features the rule model reads: cues, structure, length and place (not words, pairs or first words). */
const RULE_FEATURE = /^(?:g:|pos:|words:|s:(?:endq|caps|bullet|code|symbols|path|url)$)/;
/** Bands of the turn model's instruction probability, highest first, each with its lower bound. */
const INSTRUCTION_BANDS: readonly (readonly [string, number])[] = [
  ["hi", 0.5],
  ["mid", 0.2],
  ["lo", 0.05],
  ["none", 0],
];
/** A turn of at most this many sentences is short: a rule said nearly on its own. */
const SHORT_TURN = 3;

/** Each sentence of a person's turn with its rule-model features (turn class from the turn model). */
export function ruleSamplesOf(
  text: string,
  kind: string,
  turnP?: readonly number[],
): { sentence: string; feats: string[] }[] {
  const p = turnP ?? softmax(W.turn, turnFeatures(text, kind));
  const ss = ownSentences(text);
  const turnChars = spokenText(text).length;
  return ss.map((sentence, position) => ({
    sentence,
    feats: ruleFeatures(sentence, { position, sentences: ss.length, turnChars }, p),
  }));
}

/**
 * The rule sentences of a turn, whole and in order (the person's words only): those of the rule shape when it has
 * any, else those the sentence model gives the sentence threshold or more (none when no sentence reaches it: a turn
 * whose every sentence is unlike a rule gives no line). Code the person pasted is never a rule sentence. Meant for a
 * turn classed `instruction`.
 */
export function instructionSentences(text: string): string[] {
  const scored = turnSentences(text)
    .filter((x) => !codeLine(x.sentence))
    .map((x) => ({ ...x, p: logistic(W.sentence, x.feats) }));
  const shaped = scored.filter((x) => ruleShaped(x.sentence));
  const kept = shaped.length > 0 ? shaped : scored.filter((x) => x.p >= W.sentence_threshold);
  return kept.map((x) => x.sentence);
}

/** A turn as the classifier reads it: who spoke, the parser's kind, its text, its id. */
export interface ClassifiedTurnInput {
  id: string;
  role: string;
  kind: string;
  text: string;
  sidechain?: boolean | undefined;
}

/** Whether a turn is a person's message in the conversation (not injected, not a subagent's exchange). */
const isMessage = (t: ClassifiedTurnInput): boolean => t.role === "user" && t.kind === "message" && !t.sidechain;

/** What a person typed in a turn (injected blocks left out); empty when the turn is not a person's conversation. */
function typedText(t: ClassifiedTurnInput): string {
  return isMessage(t) ? humanPart(t.text).text.trim() : "";
}

/**
 * The latest one-off request of a span: the last typed turn the classifier calls a request (a turn that also sets a
 * standing rule counts when its likeliest other class is a request), with the person's words, injected blocks left
 * out. Undefined when the person asked for nothing.
 */
export function latestRequest(turns: readonly ClassifiedTurnInput[]): { text: string; turn: string } | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    const text = typedText(t);
    if (!text) continue;
    const p = softmax(W.turn, turnFeatures(t.text, t.kind));
    if (decideTurn(p, t.kind, Number.POSITIVE_INFINITY) === "request") return { text, turn: t.id };
  }
  return undefined;
}

/**
 * The standing instructions of a span, one line per turn that sets one: the turn's instruction sentences, each
 * whole, in order, joined up to `max` characters (a single longer sentence is kept whole, never cut inside; the
 * sentences past `max` go on in further lines of the same turn); and the
 * sentences of the rule shape a request or a problem report states for its task, each whole, the request left out.
 */
export function standingInstructions(
  turns: readonly ClassifiedTurnInput[],
  max = 480,
): { text: string; turn: string }[] {
  const out: { text: string; turn: string }[] = [];
  for (const t of turns) {
    if (!isMessage(t)) continue;
    const cls = classifyTurn(t.text, t.kind);
    // A request or report can carry the task's own rule ("Fix it, but do not change the public API."): a sentence
    // of the rule shape in it is kept whole, the request around it is not.
    const picked =
      cls === "request" || cls === "problem"
        ? ownSentences(t.text).filter((x) => !codeLine(x) && (ruleShaped(x) || x.split(/;\s+/).some(shortFirmRule)))
        : cls === "instruction"
          ? instructionSentences(t.text)
          : [];
    for (const text of joinWhole(picked, spokenText(t.text), max)) out.push({ text, turn: t.id });
  }
  return out;
}

/**
 * Sentences of one turn as lines of at most `max` characters (a longer sentence is a line of its own, whole):
 * sentences next to each other in `source` joined by a space, sentences apart by `…` (what stands between them is
 * left out, never part of one); a turn of many rules goes on in further lines, so that none is dropped for room.
 */
function joinWhole(picked: readonly string[], source: string, max: number): string[] {
  const flat = source.replace(/\s+/g, " ");
  const lines: string[] = [];
  let text = "";
  let prev = "";
  for (const s of picked) {
    const sep = flat.includes(`${prev} ${s}`.replace(/\s+/g, " ")) ? " " : " … ";
    if (text && text.length + sep.length + s.length > max) {
      lines.push(text);
      text = "";
    }
    text = text ? `${text}${sep}${s}` : s;
    prev = s;
  }
  if (text) lines.push(text);
  return lines;
}
