// Units read from a session's events, the stream the summary's ledger reads: each request's edits (full paths,
// the request in the user's words, the commit that carried them), each commit (hash, message, files), each
// revert, each error (where it was hit, what resolved it), and the standing rules a person set. Texts are whole
// sentences: a request or a rule is kept in the user's words, never cut in the middle.
import type { Sections, Turn } from "../conversation/schema.js";
import { redact } from "../text/redact.js";
import { signature } from "../text/signature.js";
import { callsWithResults, shellReverts } from "../transcript/events/events.js";
import { resultFailed } from "../transcript/events/failures.js";
import { commandText } from "../transcript/events/ledger.js";
import { conversational } from "../transcript/extraction/extract.js";
import { echoesAgent, humanPart } from "../transcript/extraction/human.js";
import {
  RULE_HEDGE,
  RULE_MODAL,
  RULE_QUESTION,
  RULE_STANDING,
  RULE_USE,
} from "../transcript/extraction/human-classes.js";
import { FIRM_CUES } from "../transcript/rendering/clip.js";
import { changeStatement, editAccount, type Hunk, spanHunks, trivialEdits, WORK_LOG } from "./change-account.js";
import { failureFate, type Fate } from "./failure-fate.js";
import type { Evidence, UnitDraft } from "./schema.js";
import { IMPERATIVE } from "./segment.js";

/** The longest request or rule kept whole; a longer single sentence is a paste, not something said. */
const MAX_SENTENCE = 600;
/** Paths named in one change unit; the rest are counted. */
const MAX_FILES = 20;

/** A pasted block: a code fence, or the triple quotes some people type for one. */
const FENCE = /```[\s\S]*?(?:```|$)|'''[\s\S]*?(?:'''|$)|"""[\s\S]*?(?:"""|$)/g;

/** Sentences of what a person typed: code fences and pasted log lines left out. */
export function typedSentences(text: string): string[] {
  return withoutLogs(text.replace(FENCE, "\n").split(/\n+/))
    .map(beforeLog)
    .filter((l) => !DIAGNOSTIC.test(l.trim()) && !LOG_LINE.test(l.trim()))
    .flatMap(lineSentences)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s.length > 2 && !PASTED.test(s));
}

/**
 * Abbreviations a sentence goes on after ("the Record "Gen. Journal Line"", "customer no. 5", "e.g. a path"); a
 * single capital with a point is an initial.
 */
const ABBREVIATION =
  /(?:^|[\s("'“‘])(?:e\.g|i\.e|cf|vs|no|nr|nos|gen|approx|incl|excl|ca|fig|ref|dept|mr|mrs|ms|dr|prof|st|jr|sr|co|inc|ltd|corp|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|[A-Z])\.$/i;

/**
 * One line's sentences: split after . ! ? and a space, except after an abbreviation or, for a writer who starts
 * sentences with a capital, where the next word goes on in lower case or with a number. A line typed all in lower
 * case ("always run the tests. never push to main.") starts each sentence in lower case, so there that says nothing.
 */
export function lineSentences(line: string): string[] {
  // Each sentence as its pieces, joined once at the end: an abbreviation is read on the last piece alone (a piece
  // starts after a space, where the abbreviation may start), so a line of many pieces costs no more than its length.
  const out: string[][] = [];
  const capitalised = !/^[^\p{L}]*\p{Ll}/u.test(line);
  for (const piece of line.split(/(?<=[.!?])\s+/)) {
    const last = out.at(-1)?.at(-1);
    const goesOn =
      last !== undefined &&
      last.endsWith(".") &&
      (ABBREVIATION.test(last) || (capitalised && /^[\p{Ll}\d]/u.test(piece)));
    if (goesOn) out.at(-1)!.push(piece);
    else out.push([piece]);
  }
  return out.map((pieces) => pieces.join(" "));
}

/**
 * A line a program printed: a log line (a date and time, a level tag, ASP.NET's "fail: Category[1]"), a shell's
 * prompt and command, a Python frame's "async def" or an exception's "--->" inner line.
 */
const LOG_LINE =
  /^(?:\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[?(?:INFO|ERROR|WARN(?:ING)?|DEBUG|TRACE|FATAL|CRITICAL)\]?[:\s]|(?:fail|info|warn|dbug|crit|trce):\s+[\w.]+\[\d+\]|[\w.-]+@[\w.-]+:\S*[$#](?:\s|$)|PS [A-Za-z]:\\|async\s+def\b|-{2,}>|The above exception was|During handling of the above exception)/;
/** Where a log starts inside a line the person began ("I get this now: 2026-03-30 22:31:27 [INFO] …"). */
const LOG_INSIDE = /\s(?:\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[(?:INFO|ERROR|WARN(?:ING)?|DEBUG|TRACE|FATAL|CRITICAL)\])/;

/** The lines of a text without its log lines and the indented lines that go on from one ("fail: …[1]\n      An …"). */
function withoutLogs(lines: readonly string[]): string[] {
  const out: string[] = [];
  let inLog = false;
  for (const l of lines) {
    if (LOG_LINE.test(l.trim())) inLog = true;
    else if (!(inLog && /^(?:\s{2,}|\t)/.test(l))) {
      inLog = false;
      out.push(l);
    }
  }
  return out;
}

/** A line without the log it runs into: the person's words before it, when there are a few. */
function beforeLog(line: string): string {
  const at = line.search(LOG_INSIDE);
  if (at < 0) return line;
  const lead = line.slice(0, at).trim();
  return lead.split(/\s+/).length >= 3 ? lead : "";
}

/** A compiler's or linter's line, pasted whole: a location, then error or warning ("src/a.al(40,42): error AL0856: …"). */
const DIAGNOSTIC = /^\S+?(?:\(\d+(?:,\d+)*\)|:\d+(?::\d+)?)\s*:?\s*-?\s*(?:error|warning|fatal error)\b/i;

/** A line pasted from a terminal or a file, not written to the agent. */
const PASTED =
  /^(?:['"][\w/ -]+['"]\s*:|\s*at\s|File "|Traceback|[A-Za-z]:\\|\$ |>>>|\d+\s*[|:]\s|[{}[\]();]+$|(?:(?:def|class|const|let|var|function|assert|raise|return)\b|await\s|yield\s|print\(|from\s+[\w.]+\s+import\b|import\s+[\w.{*]+(?:\s+as\s+\w+)?$)|(?:if|for|while|elif|with)\b.*:$|[\w.[\]]+\s*(?:[+*/-]?=(?!=)|\()|[\w.]+\s*:\s*[\w.[\], |]+=(?!=))|[{};]\s*$/;

/** A request in the user's words: its opening whole sentences, up to about 300 characters; empty for a paste. */
export function requestText(text: string): string {
  const out: string[] = [];
  let n = 0;
  for (const s of typedSentences(text)) {
    if (s.length > MAX_SENTENCE) break;
    if (n > 0 && n + s.length > 300) break;
    out.push(s);
    n += s.length + 1;
    // An error line quoted after the person's words ends what they typed: what follows it is the rest of the paste.
    if (n >= 120 || ERROR_START.test(s)) break;
  }
  return out.join(" ");
}

/**
 * A standing rule: a directive that binds beyond the request at hand. It opens with always/never/don't/make
 * sure/avoid/only/keep/stop (after a condition, a please or a connective), or says that someone or something must or should
 * (not) do a thing, or holds from now on. A question, a hedge ("I'm not sure if I should …") or a one-off request
 * ("list the unused functions") is not one. The modal, standing, choice-of-means, question and hedge shapes are the
 * human-turn classifier's own (transcript/extraction/human-classes.ts); the opening here also takes "In …, "/"For …, ".
 */
const RULE_OPENING =
  /^(?:(?:if|when|whenever|before|after|once|unless|in|on|for|with)\b[^,]{1,80},\s*)?(?:(?:please|and|also|but|so|then|again|remember(?: to)?|note|important)[,:!]?\s+)*(?:always|never|don'?t|do not|make sure|ensure|avoid|only|keep|stop|no more|no longer|under no circumstances|no(?=\s+[\w-]+\s+\w))\b/i;
/** A sentence and the clauses it joins with ", but", ", and" or ";": "Fix it, but do not change the API" holds a rule. */
const clauses = (s: string): string[] => [s, ...s.split(/,\s*(?:but|and)\s+|;\s*/).slice(1)];

/** A sentence that can stand as a rule unit: long enough to say something, whole, not a heading or a question. */
const isRuleShaped = (s: string): boolean =>
  s.length >= 15 && s.length <= MAX_SENTENCE && !s.endsWith(":") && !RULE_QUESTION.test(s);

/** A list item's marker ("- ", "* ", "2) "): not part of what the item says. */
const BULLET = /^(?:[-*•+]|\d{1,2}[.)])\s+/;

/**
 * Words that make a sentence hold beyond the request at hand: every time, whenever, from now on, as we go, keep a
 * thing updated or minimal, remember to (a reminder of a standing duty).
 */
const STANDING_MARK =
  /\b(?:always|never|every ?time|each time|whenever|from now on|going forward|in (?:the )?future|at all times|for (?:any|every|all|each) [\w-]+|as we (?:go|progress|progess|make|work)|remember to|remeber to|don'?t forget to)\b|\bkeep\b.{0,60}\b(?:updated|up to date|in sync|consistent|the same|minimal|to (?:the|a) minimum|clean|short|simple)\b/i;

/**
 * Words that bound what a sentence asks to the task at hand ("Only change the test file this time.", "Don't commit
 * yet.", "Skip the linter for this commit.", "Don't change anything else in that file.", "Do not use pandas in this
 * script"): a one-off request, however firm its words. "This project" or "this repo" are no such bound.
 */
const BOUND_TO_NOW =
  /\b(?:this time|(?:just )?this once|for (?:this|the) (?:one|task|change|commit|PR|pull request|ticket|fix|run|step|moment)|for now|right now|at the moment|for today|today|(?:anything|nothing) else)\b|\b(?:in|to|of|from|on) (?:this|that|these|those) (?:file|function|method|class|script|component|module|test|endpoint|query|PR|pull request|branch|commit|change|bug|page|screen)s?\b|\byet[.!]?$/i;

/**
 * "Ensure …" or "Make sure …" with no condition before it and nothing it forbids: how a person hands over one piece
 * of work ("Ensure the tests are up to date with the adapters."). It holds on only with a word that says so (always,
 * every time, for any …); "make sure that you don't build the project" forbids, and stands.
 */
const TASK_OPENING =
  /^(?:(?:please|and|also|but|so|then|again|now)[,:!]?\s+)*(?:ensure|make sure)\b(?!.*\b(?:not|never|no|don'?t|dont|doesn'?t|won'?t|without)\b)/i;

/**
 * A tentative idea ("I think maybe we should have a landing table …", "perhaps the parser could …"): a thought on the
 * design put forward, not a rule set, unless a word says it holds every time.
 */
const TENTATIVE = /\b(?:maybe|perhaps|possibly|might|I wonder|not sure)\b/i;
/**
 * Where a rule's own clause ends and a reason or an aside begins ("Don't use eval, it might run untrusted input"): a
 * tentative word after it hedges the reason, not the rule.
 */
const REASON_BREAK = /[,;:(–—]|\s(?:because|since|as|so|otherwise|or else|in case)\s/i;
/** Words that say a sentence holds every time, however tentatively it is put. */
const HOLDS_ON = /\b(?:always|never|every ?time|each time|whenever|from now on|going forward|at all times)\b/i;

/** Whether one sentence, read alone, sets a standing rule: the shape of a firm rule, or a directive that holds on. */
export function standingRule(sentence: string): boolean {
  const s = sentence.replace(BULLET, "");
  if (!isRuleShaped(s) || BOUND_TO_NOW.test(s)) return false;
  if (TENTATIVE.test(s.split(REASON_BREAK)[0]!) && !HOLDS_ON.test(s)) return false;
  if (FIRM_CUES.test(s) && !RULE_HEDGE.test(s)) {
    const bodies = clauses(s);
    const opening = bodies.some((c) => RULE_OPENING.test(c) && !TASK_OPENING.test(c));
    if (opening || RULE_MODAL.test(s) || RULE_STANDING.test(s) || RULE_USE.test(s)) return true;
  }
  // "Keep the spec updated as decisions are made", "I think we should bump the version each time we make changes":
  // a directive (an imperative, a reminder, what we or you should do) with a word that makes it hold on.
  if (STANDING_MARK.test(s) && directive(s)) return true;
  // "When writing AL code, follow the guidelines": a directive under a condition holds each time the condition does.
  const cond = CONDITIONAL.exec(s);
  return cond !== null && directive(cond[1]!);
}

/** A condition that recurs (when, whenever, before, after, each time), then what to do. */
const CONDITIONAL = /^(?:when(?:ever)?|every time|each time|before|after)\b[^,]{3,80},\s*(.+)$/i;

/** What may stand before an imperative: a reminder, "meanwhile", "just", "from now on". */
const DIRECTIVE_LEAD =
  /^(?:(?:meanwhile|just|also|and|so|then|remember(?: to)?|remeber(?: to)?|from now on|going forward|in (?:the )?future)[,]?\s+)+/i;
/** A sentence that tells the agent (or "we") to do something: an imperative, a reminder, a should/need/want. */
const DIRECTIVE_SAID =
  /\b(?:we|you)\s+(?:should|must|need to|have to|shall)\b|\bI (?:want|need|would like|'d like) you to\b|\b(?:remember|remeber|don'?t forget)\b/i;
const directive = (s: string): boolean => IMPERATIVE.test(s.replace(DIRECTIVE_LEAD, "")) || DIRECTIVE_SAID.test(s);

export function ruleSentences(text: string): string[] {
  const scoped = taskSentences(text);
  return typedSentences(text).filter((x) => standingRule(x) && !boundToTask(x, scoped));
}

/** A list item: its indent, its marker, what it says. */
const ITEM = /^(\s*)(?:[-*•+]|\d{1,2}[.)])\s+(\S.*)$/;
/** A heading that names one piece of work, whose items are its steps and the constraints of those steps. */
const TASK_HEADING =
  /^(?:#+\s*)?(?:\*\*)?(?:fix(?:es)?|tasks?|todo|to do|steps?|changes?|implement\w*|do (?:the )?following|please)\b[^:]{0,60}:(?:\*\*)?$/i;

/**
 * The list items of a text that belong to one piece of work: the sub-items of an item ("1. In updateSnapshotAction,
 * reject invalid ids. - Do not redirect.") and the items under a task's heading ("Fix:", "Steps:"). What they say
 * bounds that piece of work, not every later one.
 */
export function taskItems(text: string): string[] {
  const out: string[] = [];
  // The lines above that the next one may hang from, each less indented than the one after it: a line goes under the
  // nearest of them indented less than it. A long paste of list lines is read in one pass.
  const open: { lead: number; line: string }[] = [];
  /** The nearest line above that is no list item: a top-level item's heading. */
  let heading: string | undefined;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const lead = /^\s*/.exec(line)![0].length;
    const m = ITEM.exec(line);
    if (m) {
      const indent = m[1]!.length;
      if (indent > 0) {
        const above = open.findLast((o) => o.lead < indent)?.line;
        if (above !== undefined && (ITEM.test(above) || TASK_HEADING.test(above.trim()))) out.push(m[2]!.trim());
      } else if (heading !== undefined && TASK_HEADING.test(heading.trim())) out.push(m[2]!.trim());
    } else heading = line;
    while (open.length && open.at(-1)!.lead >= lead) open.pop();
    open.push({ lead, line });
  }
  return out;
}

/** Whether a sentence is said in a task's list item and no word in it makes it hold beyond that task. */
function boundToTask(sentence: string, items: ReadonlySet<string>): boolean {
  const s = sentence.replace(BULLET, "").trim();
  return !STANDING_MARK.test(s) && items.has(sentenceKey(s));
}

/** How a sentence is looked up among the sentences of a task's items: its opening, its spaces squeezed. */
const sentenceKey = (s: string): string => s.replace(/\s+/g, " ").trim().slice(0, 60);

/** The sentences said in a text's task items, by their opening: one lookup per sentence, however long the list. */
function taskSentences(text: string): Set<string> {
  return new Set(taskItems(text).flatMap(lineSentences).map(sentenceKey));
}

interface Request {
  turn: string;
  index: number;
  text: string;
  /** The last request before it that says what the work is, when this one only follows up ("still failing"). */
  task?: string;
  /** The turn was output the person pasted (a log, a console, a traceback): `text` is the error line it shows. */
  pasted?: boolean;
  /** The agent's offer this request accepts ("go ahead" after "Want me to add a shortcut?"): what the work is. */
  offer?: string;
}

/** A person accepting what the agent offered, and nothing more: "go ahead", "yes please", "that would be awesome". */
const ACCEPTS =
  /^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|great|perfect|cool|nice)[,.!]?\s+)*(?:(?:please\s+)?(?:go ahead|do it|do that|proceed|go for it)|yes(?: please)?|yeah|yep|sure|ok(?:ay)?|that (?:would be|sounds) \w+|sounds (?:good|great)|i agree|please do|let'?s do (?:it|that))[\s.!,]*(?:thanks?(?: you)?[\s.!]*)?$/i;

/** An offer or a question of the agent asking to go on with a piece of work ("Would you like me to add …?"). */
const OFFER =
  /^(?:(?:so|now|next|if you (?:want|like)),?\s+)?(?:(?:do you )?want me to|would you like (?:me to|to)|shall I|should I|do you want (?:me to|to)|I can (?:also )?\w+|let me know if you(?:'d| would) like (?:me to)?)\b/i;

/**
 * The offer a request that only accepts one takes up, whole: the last offer among the closing sentences of the agent's
 * last messages, newest first (a question answered in between, as in "do you mean …?" then "that would be awesome",
 * leaves the offer before it standing). Undefined when there is none.
 */
function acceptedOffer(typed: string, agentSince: readonly string[]): string | undefined {
  if (!ACCEPTS.test(typed.trim())) return undefined;
  for (const agent of [...agentSince].reverse()) {
    const sentences = agent
      .slice(-4 * MAX_SENTENCE)
      .split(/\n+|(?<=[.!?])\s+/)
      .map((x) => x.replace(/^[\s>*#-]+/, "").trim())
      .filter((x) => x.length > 0 && x.length <= MAX_SENTENCE);
    const offer = sentences
      .slice(-OFFER_SENTENCES)
      .reverse()
      .find((x) => OFFER.test(x) && /\p{L}{3,}.*\s\S+\s\S+/u.test(x));
    if (offer) return offer;
  }
  return undefined;
}

/** How far back an acceptance looks for the offer: the agent's last messages, and their closing sentences. */
const OFFER_MESSAGES = 2;
const OFFER_SENTENCES = 3;

/** A follow-up that says nothing of the work by itself: "continue", "check console output", "still the same error". */
const FOLLOW_UP =
  /^(?:(?:ok(?:ay)?|so|now|yes|great|thanks|nice|and|but|hmm)[,.!]?\s+)*(?:(?:please\s+)?(?:continue|contine|go on|go ahead|proceed|keep going|try again|do (?:it|that|this|option \w+)|implement (?:the|this|that|your) plan|that would be\b|sounds good|check (?:the )?(?:console )?outputs?)\b|still\b|same\b|it (?:still|works)\b|there (?:was|is) (?:a|an|still)\b)|\b(?:where you (?:were|left off)|please contine|please continue|go ahead|i agree)\b/i;

/** Whether a request says what the work is: a few words of its own, not only a follow-up. */
function saysTheWork(text: string): boolean {
  const words = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]{3,}/u.test(w));
  // A lead-in to a paste ("This is the response from the health endpoint:") says what it shows, not the work.
  return words.length >= 3 && !FOLLOW_UP.test(text) && !text.endsWith(":");
}

/** Words a person uses to speak to the agent: a pronoun, a please, a question word; a paste has none of them. */
const ADDRESSED =
  /\b(?:I|I'?m|I'?ve|I'?d|Im|[Mm]y|[Mm]e|[Ww]e|[Oo]ur|[Uu]s|[Yy]ou|[Yy]our|[Pp]lease|pls|[Ll]et'?s|[Ll]ets|[Ww]hy|[Hh]ow|[Ww]hat|[Hh]elp|[Ss]till|[Aa]gain|[Nn]ow)\b|\?$/;
/** A program's step label ("Test 1: Converting …"): no imperative, though its first word may read as one. */
const STEP_LABEL = /^\p{L}+\s+\d+\s*:/u;

/**
 * Whether what a person typed is output they pasted with no word of their own: several lines (or one a log or a
 * prompt printed), none of them speaking to the agent or asking for anything.
 */
function pastedOutput(typed: string): boolean {
  const lines = typed.split("\n").filter((l) => l.trim());
  if (lines.length < 3 && !lines.some((l) => LOG_LINE.test(l.trim()))) return false;
  // "… for fetching the schema I get {": the person's words lead into what they pasted.
  if (payloadLead(typed)) return false;
  // Something on it a program printed: a log, code, a compiler's line, an error, columns of a table. Terse notes
  // with none ("Dark mode toggle in the header\nColours as CSS variables") are the person's own request.
  const printed = (l: string) =>
    LOG_LINE.test(l) ||
    PASTED.test(l) ||
    DIAGNOSTIC.test(l) ||
    ERROR_START.test(l) ||
    /\b(?:error|exception):/i.test(l);
  // Columns are a table's when two lines or more have them: one double space is a slip of the person's typing.
  const columns = lines.filter((l) => /[^\s.!?] {2,}\S/.test(l.trim())).length >= 2;
  if (!columns && !lines.some((l) => printed(l.trim()))) return false;
  return !typedSentences(typed).some(
    (x) => ADDRESSED.test(x) || (IMPERATIVE.test(x) && !STEP_LABEL.test(x)) || (ownSentence(x) && !printed(x)),
  );
}

/**
 * A sentence as a person writes one, in any language: a few words ended by a full stop, a question or an exclamation
 * mark (not a program's "Converting …" trailing off), or a sentence of a script written without spaces ("…ください。").
 */
function ownSentence(x: string): boolean {
  if (/[。！？]$/u.test(x)) return true;
  return /(?<![.…])[.!?]$/u.test(x) && x.split(/\s+/).filter((w) => /\p{L}{2,}/u.test(w)).length >= 3;
}

/** The error a paste shows: its last error line (a traceback ends on the exception), taken whole. */
function pastedError(typed: string, t: Turn): string | undefined {
  return typed
    .split("\n")
    .map((l) => l.replace(/^[\s>]+/, "").trim())
    .map((l) => (l.length <= 300 && !/[{}]/.test(l) && !PASTED.test(l) ? errorLine(l, t) : undefined))
    .filter((l): l is string => l !== undefined)
    .at(-1);
}

/** A traceback's frame line: Python's `File "path", line N`, or JavaScript's `at fn (path:N:M)`. */
const FRAME_LINE = /^\s*(?:File "([^"]+)", line (\d+)|at (?:[\w.<>]+ )?\(?([^\s():]+):(\d+):\d+\)?)/;

/**
 * Where a pasted traceback with no error line stops (the person copied its frames but not the exception): its last
 * frame, `File "backend/db.py", line 43`. It still opens the work the paste led to, apart from the request before.
 */
function pastedFrame(typed: string): string | undefined {
  const last = typed
    .split("\n")
    .map((l) => FRAME_LINE.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .at(-1);
  if (!last) return undefined;
  return last[1] !== undefined ? `File "${last[1]}", line ${last[2]}` : `${last[3]}:${last[4]}`;
}

/** The words a person typed before a payload they pasted on the same line, as a lead-in ("… I get:"). */
function payloadLead(typed: string): string {
  const first = typed.trim().split("\n")[0]!.trim();
  // The brace is cut off by position: a pattern of spaces before it would read a long run of spaces quadratically.
  const lead = /[{[]$/.test(first) ? first.slice(0, -1).trim() : first;
  if (lead === first || lead.length > MAX_SENTENCE || lead.split(/\s+/).length < 5 || PASTED.test(lead)) return "";
  return `${lead.replace(/[\s:,]+$/, "")}:`;
}

/** A request as a unit names it: its words, and the task it follows up when it says nothing of the work alone. */
function requestPhrase(r: Request): string {
  // A lead-in's colon is left out of the quote: "… the access token:" then a quote reads as a secret to redact.
  const words = quoted(r.text.replace(/\s*:$/, ""));
  const said = r.pasted ? `the error ${words} the person pasted` : `the request ${words}`;
  if (r.offer) return `${said} (accepting the agent's offer ${quoted(r.offer)})`;
  return r.task ? `${said} (a follow-up to the request ${quoted(r.task)})` : said;
}

/** The person's requests in a span, in order (an echo of the agent's plan handed back as input is not one). */
function requestsOf(span: readonly Turn[]): Request[] {
  const out: Request[] = [];
  let previousAgent: string | undefined;
  /** The agent's last messages, newest last. */
  const agentSince: string[] = [];
  span.forEach((t, index) => {
    if (t.role === "assistant" && t.text.trim()) {
      previousAgent = t.text;
      agentSince.push(t.text);
      if (agentSince.length > OFFER_MESSAGES) agentSince.shift();
    }
    if (t.role !== "user" || !conversational(t)) return;
    const typed = humanPart(t.text).text;
    if (!typed || echoesAgent(typed, previousAgent)) return;
    // A report that opens a pasted payload on its first line ("… for fetching schema I get {") is still a request:
    // without it, the edits it led to would be filed under the request before.
    const pasted = pastedOutput(typed);
    let text = pasted ? (pastedError(typed, t) ?? pastedFrame(typed) ?? "") : requestText(typed) || payloadLead(typed);
    if (!text) return;
    // "Build error:" with the log pasted after it: the request is the error it pasted.
    if (text.endsWith(":")) {
      const pasted = typed
        .split("\n")
        .map((l) => l.replace(/^[\s'"`>]+/, "").trim())
        .map((l) => (l.length <= 300 ? errorLine(l, t) : undefined))
        .find((l) => l && ERROR_START.test(l));
      if (pasted) text = `${text} ${pasted}`;
    }
    const task = [...out].reverse().find((r) => saysTheWork(r.text))?.text;
    const follows = (pasted || !saysTheWork(text)) && task;
    const offer = pasted ? undefined : acceptedOffer(typed, agentSince);
    out.push({
      turn: t.id,
      index,
      text,
      ...(follows && !offer ? { task } : {}),
      ...(pasted ? { pasted } : {}),
      ...(offer ? { offer } : {}),
    });
  });
  return out;
}

const COMMIT = /^commit(?: ([0-9a-f]{7,40}))?: (.+)$/;
const AIDER_REMOVED = /^>?\s*Removed: ([0-9a-f]{7,40}) (.+)$/m;

function quoted(s: string): string {
  return `"${s.replace(/"/g, "'")}"`;
}

/** Files as a unit lists them, each with what its edits did when the events say (`a.py (added function \`f\`)`). */
function listFiles(files: string[], notes?: ReadonlyMap<string, string>): string {
  const shown = files.slice(0, MAX_FILES).map((f) => (notes?.get(f) ? `${f} (${notes.get(f)})` : f));
  const more = files.length - shown.length;
  return `${shown.join(", ")}${more > 0 ? ` and ${more} more files` : ""}`;
}

/** The agent harness's own failures (the model's API, a tool's misuse, a fetch): not the project's errors. */
const HARNESS =
  /\blitellm\.|RateLimit|rate[- ]limited|AuthenticationError|credit balance|x-api-key|overloaded|Failed to retrieve content from|Unable to initialize playwright|has been modified since read|invalid tool call|not a valid artifact path|String to replace not found|tool_use_error|InputValidationError|context (?:length|window)|maximum context|Request timed out|kill \d+ failed|SEARCH\/REPLACE block|file not found error|^Found \d+ errors? in\b/i;
/** Something concrete an error line names: an error class or code, a quoted name, a status, a call or a path. */
const CONCRETE =
  /\b[A-Z]\w*(?:Error|Exception|Warning)\b|\b(?:error|warning)\s+[A-Z]*\d+|\bE[A-Z]{3,}\b|["'`‘“][^"'`’”]{3,}["'`’”]|\b[45]\d\d\b|::|\w\(|\w\/\w|\bLine \d+|\bexit (?:code|status) \d+/;
/** What a person's report needs to be an error line: an error class, an error code or message, a failing status. */
const ERRORISH = [
  /\b\w*(?:Error|Exception)\b|\b[A-Z]{2,}\d{3,}\b|\bE[A-Z]{3,}\b|\b[45]\d\d\b|\bFAIL(?:ED)?\b/,
  /\berror\b\s*[:"“\]]|\b(?:fail(?:s|ed|ing)?|cannot|can't|not found|does not exist|denied|already exists|not supported|unable to|refused|uncaught)\b/i,
];
/** A line as a tool prints an error: its class, code or marker first (after a module path or a location). */
const ERROR_START = /^(?:[\w./\\:-]+[:(]\d+[^ ]*\s*[-:]?\s*)?(?:[\w.]*(?:Error|Exception)\b|error\b|FAIL|\[ts Error\])/;
/** An error the agent's own edit caused: a file it just wrote does not parse. */
const SELF_INFLICTED =
  /\b(?:SyntaxError|syntax error|IndentationError|TabError|E999|unterminated|Unexpected token|unexpected (?:indent|EOF)|Parsing error|(?:Expression|Identifier|Declaration or statement|Statement|Type) expected)\b|'[^'\s]{1,3}' expected\b/i;
/** An error of the environment the agent's own command ran in: a port its earlier run still held. */
const OWN_RUN = /\bEADDRINUSE\b|\baddress already in use\b/i;
/** A test runner's failing test, with the test file it is in: "FAIL tests/a.test.ts > …", "FAILED tests/t.py::test_x". */
const FAILING_TEST = /^(?:FAIL(?:ED)?|✗|×)\s+([^\s:>[]+?\.[\w]+)(?:::|\s|$)/;
/**
 * An error in code as a compiler, type checker or interpreter reports it before the code does anything: a type or
 * syntax error, a name or module that does not resolve. Raised right after the agent's own edit and fixed by its next
 * one, it is a step of the work.
 */
const STATIC_CODE =
  /\bTS\d{4}\b|\[ts Error\]|\berror CS\d{4}\b|\b(?:NameError|ImportError|ModuleNotFoundError|ReferenceError)\b|\bis not defined\b|\bCannot find (?:name|module)\b|\bhas no (?:exported )?member\b|\bis not assignable to\b|\bincorrectly (?:extends|implements)\b|\bdoes not exist on type\b|\bCannot find type definition\b/;
/** A remedy that is an edit of a file (the summary's "then src/x.ts was written (t9)"). */
const EDIT_REMEDY = /\bwas (?:written|edited|created|modified|applied|updated)\b/;
/** A docstring's or doc comment's `Raises:` entry ("ValueError: If the input is empty"): documents an error, hits none. */
const DOC_RAISES = /^[\w.]*(?:Error|Exception|Warning)\s*:\s*(?:If|When|Whenever|Raised|Thrown|On|In case)\b/;
/** An error class alone, with no message ("NotImplementedError."): what was hit, not what went wrong. */
const BARE_CLASS = /^[\w.]*(?:Error|Exception)[.:]?$/;
/** A command's exit reported by what ran it ("did not complete successfully: exit code: 2", "exited with code 1"). */
const EXIT_ONLY =
  /\b(?:exit(?:ed)? (?:with )?(?:code|status)|did not complete successfully|returned non-zero exit status|ELIFECYCLE)\b/i;
/**
 * An error a line names beyond the exit: an error class, a compiler's code, a system error's code (ENOENT, EACCES;
 * not npm's ELIFECYCLE wrapper), a signal or the memory killer, or the message the exit code is followed by
 * ("failed with exit code 128: fatal: not a git repository").
 */
const NAMED_ERROR =
  /\b\w+(?:Error|Exception)\b|\b[A-Z]{2,}\d{3,}\b|\bE(?!RROR\b|LIFECYCLE\b|XIT)[A-Z]{3,}\b|\bSIG[A-Z]{3,}\b|\bOOM|\b(?:out of memory|segmentation fault|killed)\b|\b(?:code|status)\s*:?\s*-?\d+\s*:\s*\S/;
/** A bare assertion with no test named: the test runner's FAIL line says which test, this says little alone. */
const BARE_ASSERTION = /^Assert(?:ion)?Error: expected\b/;
/** What a log prints before the error: a clock time and its tags, a build step's seconds, a marker glyph. */
const LOG_PREFIX =
  /^(?:\d{1,2}:\d\d(?::\d\d)?\s*(?:[AP]M)?\s+(?:\[[^\]]{1,40}\]\s*|\([^)]{1,20}\)\s*)*|(?:\d+\.\d{3}\s+)+|[×✖✗]\s+)/;

const normalized = (s: string) => s.replace(/["'`]/g, "").replace(/\s+/g, " ").trim().toLowerCase();

/**
 * The error line of a failure as a unit states it: whole (a line the summary cut is taken whole from its turn),
 * without a log's clock or tags; none for the harness's own failures, a header or a remark naming nothing.
 */
export function errorLine(text: string, turn: Turn): string | undefined {
  let line = text.replace(/\s+/g, " ").trim();
  if (line.includes("…")) {
    const head = line.split("…")[0]!.trim();
    const sources = [turn.text, ...turn.tool_results.map((r) => r.output)];
    const whole = sources
      .flatMap((x) => x.split("\n"))
      .map((l) => l.replace(/\s+/g, " ").trim())
      .find((l) => head.length >= 20 && l.includes(head) && !l.includes("…"));
    if (!whole) return undefined;
    line = whole.slice(Math.max(0, whole.indexOf(head)));
  }
  line = line.replace(/&gt;/g, ">").replace(/&lt;/g, "<").replace(/&amp;/g, "&").replace(LOG_PREFIX, "").trim();
  // A person's words running into a log they pasted ("… the register command: 2026-03-30 22:36:00 [ERROR] …"): the
  // log's own error line is read where it stands.
  if (turn.role === "user" && beforeLog(line) !== line) return undefined;
  // An inner exception's marker (".NET's "---> System.Net.Sockets.SocketException …").
  line = line.replace(/^-{2,}>\s*/, "");
  // A line wrapped whole in a code span or fence marks ("```Property 'x' does not exist …```"): the line inside.
  const wrapped = /^(`{1,3})([^`]+)\1$/.exec(line);
  if (wrapped) line = wrapped[2]!.trim();
  // Said in the agent's prose ("`KeyError: 'id'` means that …"): the error it quotes, or nothing.
  if (turn.role === "assistant" && !ERROR_START.test(line) && turn.text.includes(line.slice(0, 40))) {
    const quotedError = /`([^`]*\b\w*(?:Error|Exception)\b[^`]*)`/.exec(line)?.[1];
    if (!quotedError) return undefined;
    line = quotedError.trim();
  }
  if (!ERRORISH.some((r) => r.test(line))) return undefined;
  // A line that starts inside a token (":7270/Catalog/…:1 Failed to load resource") is a fragment of a longer one.
  if (/^[:;,)\]}]/.test(line)) return undefined;
  line = unwrapped(line, turn);
  // A line that only announces the error ("Traceback (most recent call last):", "Build error:") says nothing alone.
  if (line.endsWith(":") || line.length < 12 || line.length > 400) return undefined;
  if (DOC_RAISES.test(line) || BARE_CLASS.test(line)) return undefined;
  // A wrapper's report that a command exited non-zero says nothing of why: the error that made it fail is its own unit.
  if (EXIT_ONLY.test(line) && !NAMED_ERROR.test(line)) return undefined;
  if (HARNESS.test(line) || BARE_ASSERTION.test(line) || /\{"/.test(line) || !CONCRETE.test(line)) return undefined;
  return line;
}

/** The narrowest width a terminal wraps at that a hard-wrapped line is looked for in. */
const MIN_WRAP_WIDTH = 60;

/**
 * An error line a terminal hard-wrapped mid-word ("… conversion for sche" then "ma 'None': …" on the next line),
 * joined again: the line ends a source line as long as the longest of its source, a width two lines or more reach
 * (the terminal's), ending in a letter or digit, and the next line goes on at the margin with one.
 */
function unwrapped(line: string, turn: Turn): string {
  if (line.length < MIN_WRAP_WIDTH / 2 || !/[\p{L}\d]$/u.test(line)) return line;
  for (const source of [turn.text, ...turn.tool_results.map((r) => r.output)]) {
    if (!source.includes(line)) continue;
    const lines = source.split("\n").map((l) => l.replace(/\r$/, ""));
    // A loop, not a spread: an output of some hundred thousand lines is more arguments than a call takes.
    let width = 0;
    let atWidth = 0;
    for (const l of lines) {
      if (l.length > width) [width, atWidth] = [l.length, 0];
      if (l.length === width) atWidth++;
    }
    // One line as long as the longest says nothing of a terminal's width: the wrap shows on two lines at least.
    if (width < MIN_WRAP_WIDTH || atWidth < 2) continue;
    const k = lines.findIndex((l) => l.trimEnd().endsWith(line) && l.length === width);
    const next = k >= 0 ? lines[k + 1] : undefined;
    if (next !== undefined && /^[\p{L}\d]/u.test(next)) return `${line}${next.trim()}`;
  }
  return line;
}

/** Two errors of one kind: the same line once quoted names and numbers are taken out (AL0132 for two members). */
function errorShape(line: string): string {
  const shape = (x: string) =>
    normalized(
      x
        .replace(/^[\w.]+\.(?=\w*(?:Error|Exception)\b)/, "")
        .replace(/["'‘“][^"'’”]*["'’”]/g, "Q")
        .replace(/\d+/g, "N"),
    );
  // The message after the last error class or "error:" it is reported under: "TypeError: unhashable type" and
  // "Unexpected error: unhashable type", or a wrapper's "ExtensionFailed: … raised an error: TypeError: …".
  const message = shape(line.replace(/^.*\b(?:\w*(?:Error|Exception)|error)(?:\s+[A-Z]*\d+)?\s*:\s+(?=\S)/, ""));
  // A message that is only a value ("KeyError: 'customer_id'", "ValueError: 'N/A'") says which error by its class:
  // the last one it is reported under, as a wrapper's "… raised an exception: KeyError: 'id'" reports it.
  if (/\p{L}{2,}/u.test(message.replace(/\b[qn]\b/g, ""))) return message;
  return shape(line.replace(/^.*\b(?=[\w.]*(?:Error|Exception)(?:\s+[A-Z]*\d+)?\s*:\s+\S)/, ""));
}

/** An edit of a file, at the index of its turn in the span. */
interface Edit {
  path: string;
  op: string;
  i: number;
}

/** A commit, with the files edited since the previous one. */
interface Commit {
  sha: string;
  message: string;
  i: number;
  turn: string;
  files: string[];
}

/**
 * A file written where throwaway files go: straight into the system's temp folder (`/tmp/check.py`, a macOS or
 * Windows temp folder) or into a scratch folder: the agent's helper, not the project's. A project may itself live
 * under /tmp (`/tmp/shop/app/models.py`) or keep code in a `tmp/` or `temp/` folder of its own (`src/sensors/temp/`),
 * so neither a deeper path under /tmp nor a folder of the project named so is one. The agent's own notes on the project
 * (`~/.claude/projects/<project>/memory/…`) are its own, not the project's.
 */
const THROWAWAY =
  /^\/(?:private\/)?tmp\/[^/]+$|^\/var\/folders\/|^[A-Za-z]:\\(?:[^\\]+\\)*Temp\\[^\\]+$|(?:^|[\\/])(?:scratch|scratchpad)[\\/]|(?:^|[\\/])\.claude[\\/]projects[\\/]/i;

/** What each kind of event's units are read against: the span, its requests, edits and commits. */
interface SpanEvents {
  sessionId: string;
  span: readonly Turn[];
  at: (turn: string) => number | undefined;
  ev: (turn: string, quote: string) => Evidence[];
  requests: Request[];
  /** The request a turn served: the last one at or before it. */
  requestAt: (i: number) => Request | undefined;
  edits: Edit[];
  commits: Commit[];
  /** Whether an aider `/undo` later removed the commit: neither it nor the edits it carried are facts any more. */
  isUndone: (sha: string) => boolean;
  /** The edit hunks of each turn (change-account.ts), read on first use. */
  hunks: () => Hunk[][];
}

function spanEvents(sessionId: string, span: readonly Turn[], sections: Sections): SpanEvents {
  const index = new Map(span.map((t, i) => [t.id, i]));
  const at = (turn: string) => index.get(turn);
  const ev = (turn: string, quote: string): Evidence[] => [
    { session: sessionId, turn, quote: redact(quote).slice(0, 500) },
  ];
  const requests = requestsOf(span);
  const requestAt = (i: number): Request | undefined => {
    let r: Request | undefined;
    for (const q of requests) if (q.index <= i) r = q;
    return r;
  };
  const edits = Object.entries(sections.files)
    .flatMap(([path, ops]) => ops.map((o) => ({ path, op: o.op, i: at(o.turn) })))
    .filter((e): e is Edit => e.i !== undefined && !THROWAWAY.test(e.path))
    .filter((e) => !(e.op === "created" && emptyAtStart(span[e.i], e.path)))
    .sort((a, b) => a.i - b.i);
  const undone = undoneShas(span);
  const isUndone = (sha: string) => sha !== "" && undone.has(sha.slice(0, 7));
  const commits = commitsOf(span, sections, edits, at);
  let read: Hunk[][] | undefined;
  const hunks = () => (read ??= spanHunks(span));
  return { sessionId, span, at, ev, requests, requestAt, edits, commits, isUndone, hunks };
}

/** aider's note that it commits a file the person left changed before it applies its own edit. */
const AIDER_DIRTY = /^>?\s*Committing .+ before applying edits\.?\s*$/;
const AIDER_COMMIT_LINE = /^>?\s*Commit ([0-9a-f]{7,40})\b/;

/**
 * The short hashes of aider's commits of the person's own uncommitted changes, made before it applies its edit: the
 * session shows neither those edits nor why they were made, and the agent's edits are in the commit after it.
 */
function dirtyShas(span: readonly Turn[]): Set<string> {
  const dirty = new Set<string>();
  for (const t of span)
    for (const res of t.tool_results) {
      if (!res.output.includes("before applying edits")) continue;
      let pending = false;
      for (const line of res.output.split("\n")) {
        if (AIDER_DIRTY.test(line)) pending = true;
        const m = AIDER_COMMIT_LINE.exec(line);
        if (m && pending) dirty.add(m[1]!.slice(0, 7));
        if (m || /^>?\s*Applied edit to /.test(line)) pending = false;
      }
    }
  return dirty;
}

/** aider's empty file made at its start for a name given on its command line: no edit of any request. */
const AIDER_EMPTY = /^>?\s*Creating empty file (.+?)\s*$/gm;

/** Whether an edit is aider creating an empty file at its start, not a change made for a request. */
function emptyAtStart(turn: Turn | undefined, path: string): boolean {
  if (!turn) return false;
  const p = path.replace(/\\/g, "/");
  for (const source of [turn.text, ...turn.tool_results.map((r) => r.output)])
    for (const m of source.matchAll(AIDER_EMPTY)) {
      const made = m[1]!.replace(/\\/g, "/");
      if (made === p || made.endsWith(`/${p}`) || p.endsWith(`/${made}`)) return true;
    }
  return false;
}

/** A path under the home folder as written with `~`: outside any repository, so in no commit. */
const HOME_PATH = /^~[\\/]/;

/** Commits, in order, with the files edited since the previous one. */
function commitsOf(
  span: readonly Turn[],
  sections: Sections,
  edits: readonly Edit[],
  at: (turn: string) => number | undefined,
): Commit[] {
  const dirty = dirtyShas(span);
  // aider's own commit lines, in the order it printed them: the summary keeps one of two commits with one message.
  const printed = aiderCommits(span);
  const seen = new Set(printed.map((c) => c.sha.slice(0, 7)));
  const listed: Omit<Commit, "files">[] = [...printed];
  for (const c of sections.completed) {
    const m = COMMIT.exec(c.text);
    const i = at(c.turn);
    if (!m || i === undefined || (m[1] && seen.has(m[1].slice(0, 7)))) continue;
    listed.push({ sha: m[1] ?? "", message: m[2]!.replace(/…$/, "").trim(), i, turn: c.turn });
  }
  const commits: Commit[] = [];
  for (const c of listed.sort((a, b) => a.i - b.i)) {
    if (c.sha && dirty.has(c.sha.slice(0, 7))) continue;
    const from = commits.at(-1)?.i ?? -1;
    const files = [
      ...new Set(edits.filter((e) => e.i > from && e.i <= c.i && !HOME_PATH.test(e.path)).map((e) => e.path)),
    ];
    commits.push({ ...c, files });
  }
  return commits;
}

/** The commits aider reports in its own lines (`Commit 609f42e feat: …`), in order. */
function aiderCommits(span: readonly Turn[]): Omit<Commit, "files">[] {
  const out: Omit<Commit, "files">[] = [];
  span.forEach((t, i) => {
    for (const res of t.tool_results) {
      // Most outputs print no commit: a substring test spares reading their lines.
      if (!res.output.includes("Commit ")) continue;
      for (const m of res.output.matchAll(AIDER_COMMIT_MESSAGE))
        out.push({ sha: m[1]!, message: m[2]!.trim(), i, turn: t.id });
    }
  });
  return out;
}
const AIDER_COMMIT_MESSAGE = /^>?[ \t]*Commit ([0-9a-f]{7,40}) (\S.*?)[ \t]*$/gm;

/** The short hashes of the commits an aider `/undo` removed in the span. */
function undoneShas(span: readonly Turn[]): Set<string> {
  const undone = new Set<string>();
  for (const t of span)
    for (const res of t.tool_results) {
      const m = AIDER_REMOVED.exec(res.output);
      if (m) undone.add(m[1]!.slice(0, 7));
    }
  return undone;
}

/**
 * The most words of a follow-up left out of a change unit as saying nothing of the work ("please understand where you
 * were and continue"); a longer one that opens like a follow-up ("thanks, it works now, can you clean up …") says more.
 */
const VAGUE_WORDS = 10;
/** The words of a text that have a letter (a lone comma or dash is none). */
const wordCount = (text: string): number => text.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;
/** Letters of scripts written with no space between words (Chinese, Japanese). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
/** Words that point back at what was said and name no work ("try that", "do the same again"). */
const POINTING = /^(?:that|this|these|those|the|them|again|now|please|then|yes|and|all|too|also|same|way|one)\W*$/i;
/** The fewest such letters a request says its work in ("修复登录错误"); "继续" or "好的" say none. */
const UNSPACED_WORK = 6;

/**
 * Whether a request says nothing of the work: a short follow-up ("go ahead", "please continue"). One that names the
 * work in two words ("bump version") or in a script written without spaces ("把版本号改成1.2.4") says it.
 */
function vagueRequest(r: Request): boolean {
  if (r.pasted || r.offer || saysTheWork(r.text) || wordCount(r.text) > VAGUE_WORDS) return false;
  if ((r.text.match(UNSPACED) ?? []).length >= UNSPACED_WORK) return false;
  const named = r.text.split(/\s+/).filter((w) => /[\p{L}\p{N}]{3,}/u.test(w) && !POINTING.test(w)).length;
  return !(IMPERATIVE.test(r.text.trim()) && !FOLLOW_UP.test(r.text.trim()) && named >= 2);
}

/** The edits of one request: its files, their ops, and where its last edit is. */
interface EditGroup {
  request: Request | undefined;
  files: string[];
  ops: Set<string>;
  /** The files its edits created. */
  created: string[];
  first: number;
  last: number;
  turn: string;
}

/**
 * What a change unit says beside its files: the request when it says something of the work, else what the events say
 * was done (the definitions the edits added, changed or removed; the agent's own statement of the change) and the
 * task it followed up. Undefined for a change not worth a unit: an entry in a log of the work, or an edit the events
 * show was trivial (whitespace, a version number), made for no request that asked for it; a file list with nothing
 * to say what it was for.
 */
function changeSaid(
  s: SpanEvents,
  g: EditGroup,
  next: number,
  committed: boolean,
): { why: string; notes: Map<string, string>; statement: string } | undefined {
  const r = g.request;
  const vague = !r || vagueRequest(r);
  const from = r?.index ?? 0;
  const to = Math.min(next, s.span.length);
  if (vague && (g.files.every((f) => WORK_LOG.test(f)) || trivialEdits(s.hunks(), from, to, g.files))) return undefined;
  const account = vague || !committed;
  const statement = account ? (changeStatement(s.span, from, g.first, to, g.files) ?? "") : "";
  // A request that says the work, with the agent's statement of it, needs no list of definitions beside them.
  const notes =
    vague || (account && !statement)
      ? editAccount(s.hunks(), from, to, g.files, new Set(g.created))
      : new Map<string, string>();
  if (!r && !committed && !notes.size && !statement) return undefined;
  if (!vague || !(notes.size || statement)) return { why: r ? ` for ${requestPhrase(r)}` : "", notes, statement };
  // A request that says nothing of the work is left out; the task it followed up says what the work was for.
  return { why: r?.task ? ` while working on the request ${quoted(r.task)}` : "", notes, statement };
}

/**
 * One change per request: the files its edits touched, and the commit that carried them. Also says, per commit
 * index, the files of the change unit that names it as its carrier.
 */
function changeDrafts(s: SpanEvents): { drafts: UnitDraft[]; carriers: Map<number, Set<string>> } {
  const { span, requests, requestAt, commits } = s;
  const drafts: UnitDraft[] = [];
  const carriers = new Map<number, Set<string>>();
  const byRequest = new Map<string, EditGroup>();
  for (const e of s.edits) {
    const r = requestAt(e.i);
    const k = r?.turn ?? "";
    const g = byRequest.get(k) ?? {
      request: r,
      files: [],
      ops: new Set<string>(),
      created: [],
      first: e.i,
      last: e.i,
      turn: span[e.i]!.id,
    };
    if (!g.files.includes(e.path)) g.files.push(e.path);
    if (e.op.startsWith("created") && !g.created.includes(e.path)) g.created.push(e.path);
    g.ops.add(e.op.split(/[:\s(]/)[0]!);
    g.last = e.i;
    byRequest.set(k, g);
  }
  for (const g of byRequest.values()) {
    const next = requests.find((q) => q.index > g.last)?.index ?? Infinity;
    // The commit that carried the edits: the first after them, and of several in one turn the last (aider commits
    // the files left dirty before it edits, in the same turn as the commit of its own edits).
    const first = commits.find((c) => c.i >= g.last && c.i < next);
    const commit = first && commits.filter((c) => c.i === first.i).at(-1);
    if (commit && s.isUndone(commit.sha)) continue;
    if (commit) {
      const ci = commits.indexOf(commit);
      carriers.set(ci, new Set([...(carriers.get(ci) ?? []), ...g.files]));
    }
    const verb = g.ops.size === 1 && [...g.ops][0] === "created" ? "Created" : "Changed";
    const carried = commit ? ` (commit ${commit.sha ? `${commit.sha} ` : ""}${quoted(commit.message)})` : "";
    const said = changeSaid(s, g, next, Boolean(commit));
    if (!said) continue;
    const text = `${verb} ${listFiles(g.files, said.notes)}${said.why}${carried}.${said.statement ? ` The agent said: ${quoted(said.statement)}` : ""}`;
    drafts.push({
      category: "change",
      text,
      record: {
        kind: "edit",
        files: g.files,
        request: g.request?.text ?? "",
        ...(commit ? { commit: commit.sha, commit_message: commit.message } : {}),
      },
      key: `change:${s.sessionId}:${g.request?.turn ?? g.turn}`,
      confidence: 0.9,
      evidence: s.ev(g.turn, text),
      files: g.files,
    });
  }
  return { drafts, carriers };
}

/** One change per commit that no single request's change unit names already. */
function commitDrafts(s: SpanEvents, carriers: ReadonlyMap<number, Set<string>>): UnitDraft[] {
  const { commits, edits, requestAt } = s;
  const drafts: UnitDraft[] = [];
  for (const [ci, c] of commits.entries()) {
    // Which requests' edits the commit carried: a commit carried whole by one request's change unit is that unit.
    const from = ci > 0 ? commits[ci - 1]!.i : -1;
    const carriedBy = new Set(edits.filter((e) => e.i > from && e.i <= c.i).map((e) => requestAt(e.i)?.turn ?? ""));
    if (c.files.length > 0 && carriedBy.size === 1) continue;
    if (s.isUndone(c.sha)) continue;
    // A commit title with neither a hash nor a file says nothing a successor could find the change by.
    if (!c.sha && c.files.length === 0) continue;
    // Named already by the change unit of the request whose edits it carried (aider's second commit of a turn).
    const carrier = carriers.get(ci);
    if (carrier && c.files.every((f) => carrier.has(f))) continue;
    const text = `Commit ${c.sha ? `${c.sha} ` : ""}${quoted(c.message)}${c.files.length ? ` changed ${listFiles(c.files)}` : ""}.`;
    drafts.push({
      category: "change",
      text,
      record: { kind: "commit", sha: c.sha, message: c.message, files: c.files },
      key: `commit:${c.sha || signature(c.message)}`,
      confidence: 0.9,
      evidence: s.ev(c.turn, text),
      files: c.files,
    });
  }
  return drafts;
}

/** Reverts: what the command put back; a command that only mentions one, or one that never ran or failed, is none. */
function revertDrafts(s: SpanEvents): UnitDraft[] {
  const drafts: UnitDraft[] = [];
  for (const { at: i, call, result } of callsWithResults(s.span)) {
    if (!result || resultFailed(result, call)) continue;
    for (const { command } of shellReverts(commandText(call.input))) {
      const r = s.requestAt(i);
      const text = `Reverted with \`${command}\`${r ? ` while working on ${requestPhrase(r)}` : ""}.`;
      // What was reverted is an approach tried and abandoned: a dead end, never recalled as a fact.
      drafts.push({
        category: "dead_end",
        text,
        record: { kind: "revert", command },
        key: `revert:${signature(command)}`,
        confidence: 0.8,
        evidence: s.ev(s.span[i]!.id, text),
        files: [],
      });
    }
  }
  return drafts;
}

/** An aider `/undo` drops the last aider commit and reports it: `Removed: 609f42e feat: …`. */
function undoDrafts(s: SpanEvents): UnitDraft[] {
  const drafts: UnitDraft[] = [];
  s.span.forEach((t, i) => {
    for (const res of t.tool_results) {
      const m = AIDER_REMOVED.exec(res.output);
      if (!m) continue;
      const sha = m[1]!;
      const message = m[2]!.trim();
      const files = s.commits.find((c) => c.sha && c.sha.slice(0, 7) === sha.slice(0, 7))?.files ?? [];
      const r = s.requestAt(i);
      const text = `Undid commit ${sha} ${quoted(message)}${files.length ? ` (${listFiles(files)})` : ""} with /undo${r ? ` while working on ${requestPhrase(r)}` : ""}.`;
      drafts.push({
        category: "dead_end",
        text,
        record: { kind: "revert", command: "/undo", sha, message, files },
        key: `revert:undo:${sha}`,
        confidence: 0.8,
        evidence: s.ev(t.id, text),
        files,
      });
    }
  });
  return drafts;
}

type Failure = Sections["failures"][number];

/** Whether an error is a step of the work: caused by the agent's own edit and fixed by its next one. */
function stepOfTheWork(s: SpanEvents, f: Failure, line: string, i: number): boolean {
  if (f.category === "user-reported") return false;
  // An error the agent's own edit caused (a file it wrote does not parse) and its next edit fixed, or one of a session
  // whose edits its record does not show (an IDE chat's export): code that does not parse was mid-edit.
  if ((f.resolved || f.remediation || s.edits.length === 0) && SELF_INFLICTED.test(line)) return true;
  // Its own earlier run still holding the port, got past by a later run.
  if ((f.resolved || f.remediation) && OWN_RUN.test(line)) return true;
  // A test the agent wrote failing while it wrote it (for this request, or earlier and got passing again): a step of
  // writing the test, not a finding.
  const test = FAILING_TEST.exec(line)?.[1]?.replace(/\\/g, "/").replace(/^\.\//, "");
  if (test) {
    const r = s.requestAt(i);
    const settled = Boolean(f.resolved || f.remediation);
    // The same file, not one whose name ends the same way ("mylabels.test.ts" is not "labels.test.ts").
    const same = (path: string) => {
      const p = path.replace(/\\/g, "/");
      return p === test || p.endsWith(`/${test}`);
    };
    const own = s.edits.some((e) => e.i <= i && (settled || s.requestAt(e.i) === r) && same(e.path));
    if (own) return true;
  }
  // A type, name or import error hit after the agent edited code for the same request and fixed by an edit.
  if (EDIT_REMEDY.test(f.remediation ?? "") && STATIC_CODE.test(line)) {
    const r = s.requestAt(i);
    if (s.edits.some((e) => e.i <= i && s.requestAt(e.i) === r)) return true;
  }
  return false;
}

/**
 * A script written to look around: named for it with a separator after the word (debug_x.py, tmp-check.js,
 * scratch_test.py) or named just scratch, tmp or temp. Not a module whose name only starts so (templates.py,
 * debugger.py, temperature.py), nor anything of an installed package.
 */
const THROWAWAY_SCRIPT =
  /(?:^|[\\/])(?:(?:debug|scratch|tmp|temp|sandbox|playground)[_-][\w-]*|scratch|tmp|temp)\.\w+$/i;
/** An installed package's folder: its frames are a library's, never a throwaway script's. */
const INSTALLED = /[\\/](?:site-packages|dist-packages|node_modules)[\\/]/;
/** A traceback's frame: `File "path", line N` (Python) or `at fn (path:N:M)` (JavaScript). */
const FRAME = /File "([^"]+)", line \d+|\bat (?:[\w.<>]+ )?\(?([^\s():]+):\d+:\d+\)?/g;

/**
 * Whether an error was raised inside a throwaway script, not the project: the innermost frame of the traceback
 * printed before the error line is a debug or scratch script (its own import or attribute slip, never the code's).
 */
function raisedInThrowaway(turn: Turn, line: string): boolean {
  const probe = line.slice(0, 60);
  for (const source of [turn.text, ...turn.tool_results.map((r) => r.output)]) {
    const at = source.indexOf(probe);
    if (at < 0) continue;
    const frames = [...source.slice(Math.max(0, at - 3000), at).matchAll(FRAME)];
    const last = frames.at(-1);
    const file = last && (last[1] ?? last[2]);
    if (file) return !INSTALLED.test(file) && (THROWAWAY_SCRIPT.test(file) || THROWAWAY.test(file));
  }
  return false;
}

/** A failure unit: the error line, where it was hit, and what the events prove of its resolution. */
function failureDraft(s: SpanEvents, f: Failure, line: string, i: number, fate: Fate): UnitDraft {
  const r = s.requestAt(i);
  // A request that is the error report itself says nothing more about where it was hit.
  const reported = r && normalized(r.text).startsWith(normalized(line).slice(0, 60));
  const where = r && !reported ? ` Hit while working on ${requestPhrase(r)}.` : "";
  const text = `${line}${/[.!?]$/.test(line) ? "" : "."}${where}${fate.resolution}`;
  const severity = f.count > 1 || f.category === "user-reported" || f.category === "build error" ? "high" : "medium";
  return {
    category: "failure",
    text,
    record: {
      category: f.category,
      severity,
      error: line,
      where: r?.text ?? "",
      resolved_by: fate.resolution.trim(),
      // Cards and recall name the fix from `remediation`: only the resolution a run proved, never a guess.
      ...(fate.resolvedAt
        ? {
            remediation: fate.resolution
              .trim()
              .replace(/^Resolved: /, "")
              .replace(/\.$/, ""),
          }
        : {}),
      ...(fate.resolvedAt ? { resolved_at: fate.resolvedAt } : {}),
      ...(fate.fixedIn ? { fixed_in: fate.fixedIn } : {}),
      ...(fate.answeredBy ? { edited_after_report: fate.answeredBy } : {}),
      kept_for: fate.why,
      count: f.count,
    },
    key: f.signature,
    confidence: 0.7,
    evidence: s.ev(f.turn, line),
    files: [],
  };
}

/** One error as a span hit it, maybe in several turns and wordings: its first hit leads, the others are merged. */
interface ErrorGroup {
  f: Failure;
  line: string;
  i: number;
  /** Where the diagnostic's file was reported in its first turn: another error of that file there is the same paste. */
  located?: string;
  members: { f: Failure; line: string }[];
}

/** The file a compiler's or a test runner's line starts with ("src/a.al(40,42): error …", "FAIL tests/a.test.js > …"). */
const LOCATED = /^(?:(?:FAIL(?:ED)?|✗|×)\s+)?((?:[A-Za-z]:)?[^\s:(>]+\.\w+)(?=[(:\s]|$)/;

/** Node's message for a failed child process: `Command failed: <command>`, then the command's stderr on the next line. */
const COMMAND_FAILED = /\bCommand failed: /;
/** The fewest characters a line must have for a line quoting it to be taken for the same error. */
const QUOTED_MIN = 20;

/**
 * Whether two error lines of one turn are one error's report: one quotes the other (`stderr: "fatal: …\n"` under
 * `fatal: …`), or the second is the stderr line Node prints right under its `Command failed: <command>`.
 */
function oneReport(turn: Turn, first: string, second: string): boolean {
  const [a, b] = [normalized(first), normalized(second)];
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= QUOTED_MIN && long.includes(short)) return true;
  const [command, stderr] = COMMAND_FAILED.test(first) ? [first, second] : [second, first];
  if (!COMMAND_FAILED.test(command)) return false;
  for (const source of [turn.text, ...turn.tool_results.map((r) => r.output)]) {
    const lines = source.split("\n").map((l) => l.trim());
    const k = lines.indexOf(command.trim());
    if (k >= 0 && lines[k + 1] === stderr.trim()) return true;
  }
  return false;
}

/**
 * Whether the agent names an error in its answer to the person's report of one ("when I run the server I get an
 * error", "fix the error you see in the terminal"): the person reported it, though only the agent's words quote it
 * (the output they saw was not recorded).
 */
function answersReport(s: SpanEvents, turn: string): boolean {
  const j = s.at(turn);
  if (j === undefined || s.span[j]!.role !== "assistant") return false;
  for (let k = j - 1; k >= 0 && k >= j - REPLY_REACH; k--) {
    const t = s.span[k]!;
    if (t.role === "user" && t.kind === "message" && conversational(t))
      return REPORTS_ERROR.test(humanPart(t.text).text);
  }
  return false;
}
/** How many turns back the person's report may be from the agent's answer that names its error. */
const REPLY_REACH = 3;
/** Words a person reports an error with (a typo of "error" included). */
const REPORTS_ERROR =
  /\b(?:err(?:or|ro|o)s?|exception|traceback|fail(?:s|ed|ing|ure)?|crash(?:es|ed)?|not working|does(?:n'?t| not) work|broken)\b/i;

/** The error as its group's hits make it: reported if any hit was the person's, from its first to its last hit. */
function groupFailure(g: ErrorGroup, s: SpanEvents): Failure {
  const pos = (t: string) => s.at(t) ?? -1;
  const latest = g.members.reduce((a, b) => (pos(b.f.last_turn) > pos(a.f.last_turn) ? b : a)).f;
  const earliest = g.members.reduce((a, b) => (pos(b.f.turn) < pos(a.f.turn) ? b : a)).f;
  const reported = g.members.some((m) => m.f.category === "user-reported" || answersReport(s, m.f.turn));
  const { resolved: _r, open: _o, ...lead } = g.f;
  return {
    ...lead,
    category: reported ? "user-reported" : g.f.category,
    turn: earliest.turn,
    last_turn: latest.last_turn,
    count: g.members.reduce((n, m) => n + m.f.count, 0),
    ...(latest.resolved ? { resolved: latest.resolved } : {}),
    ...(latest.open !== undefined ? { open: latest.open } : {}),
  };
}

/** What places an error: a path, a quoted name, a number (a line, a code, a value). */
const PLACED = /[\\/"'`‘“]|\d/;

/**
 * Whether an error only restates the task it is the title of: named in the request's own turn and nowhere else, in a
 * line that places it nowhere (no file, name or number), and followed by the edits of that request, whose change unit
 * then says what was done about it ("ISSUE: SyntaxError: invalid syntax").
 */
function restatesTask(s: SpanEvents, f: Failure, line: string, i: number): boolean {
  const r = s.requestAt(i);
  if (!r || r.index !== i || f.turn !== f.last_turn || PLACED.test(line)) return false;
  if (!normalized(s.span[i]!.text).includes(normalized(line))) return false;
  return s.edits.some((e) => e.i > i && s.requestAt(e.i) === r);
}

/**
 * Errors worth recalling: the error line, where it was hit, what the events prove of its resolution; one unit per
 * kind of error in a span (its hits in other turns and wordings merged), kept only when the person reported it, it
 * persisted through an edit, or nothing after it fixed it (failure-fate.ts).
 */
function failureDrafts(s: SpanEvents, sections: Sections): UnitDraft[] {
  const groups: ErrorGroup[] = [];
  const byShape = new Map<string, ErrorGroup>();
  for (const f of sections.failures) {
    const i = s.at(f.turn) ?? s.at(f.last_turn);
    if (i === undefined) continue;
    const line = errorLine(f.text, s.span[i]!);
    if (!line || stepOfTheWork(s, f, line, i) || raisedInThrowaway(s.span[i]!, line)) continue;
    if (restatesTask(s, f, line, i)) continue;
    const shape = errorShape(line);
    const located = LOCATED.exec(line)?.[1];
    // The same error with a few words of the person's before it ("Thanks. Getting The supplied field …") is one, and
    // so are the errors one paste or run reports for one file.
    const within = (a: string, b: string) => a.length >= 30 && b.includes(a);
    const same =
      byShape.get(shape) ??
      [...byShape.entries()].find(([k]) => within(k, shape) || within(shape, k))?.[1] ??
      groups.find((g) => located !== undefined && g.located === located && g.f.turn === f.turn) ??
      groups.find((g) => g.f.turn === f.turn && g.members.some((m) => oneReport(s.span[i]!, m.line, line)));
    if (same) {
      same.members.push({ f, line });
      continue;
    }
    const g: ErrorGroup = { f, line, i, ...(located ? { located } : {}), members: [{ f, line }] };
    byShape.set(shape, g);
    groups.push(g);
  }
  const drafts: UnitDraft[] = [];
  for (const g of groups) {
    const f = groupFailure(g, s);
    const last = s.at(f.last_turn) ?? g.i;
    const fate = failureFate(f, s.span, s.edits, s.requests.find((q) => q.index > last)?.index);
    if (!fate.worth) continue;
    const draft = failureDraft(s, { ...f, turn: g.f.turn }, g.line, g.i, fate);
    for (const m of g.members.slice(1)) {
      draft.evidence.push(...s.ev(m.f.turn, m.line).filter((e) => !draft.evidence.some((x) => x.turn === e.turn)));
      const also = (draft.record.also as string[] | undefined) ?? [];
      if (m.line !== g.line && !also.includes(m.line) && also.length < 10) draft.record.also = [...also, m.line];
    }
    drafts.push(draft);
  }
  return drafts;
}

/**
 * Standing rules, in the person's words: the summary's User Constraints hold only turns the human-turn classifier
 * calls a standing instruction (and the firm rules a request states for its task); of those, each sentence that read
 * alone sets a rule (`standingRule`), taken whole from the turn (a sentence goes on after "e.g." or "no."), so a
 * one-off request, a remark or a role said in the same turn is never a rule.
 */
function ruleDrafts(s: SpanEvents, sections: Sections): UnitDraft[] {
  const drafts: UnitDraft[] = [];
  const squeeze = (x: string) => x.replace(/\s+/g, " ").trim();
  for (const c of sections.constraints) {
    const i = s.at(c.turn);
    if (i === undefined) continue;
    const said = squeeze(c.text);
    // The summary's sentences start where the turn's do, but may stop short of them (cut after "e.g." or "no."):
    // a turn sentence is one of them when it starts with one, however early the cut came.
    const starts = said
      .split(/\s*…\s*|(?<=[.!?])\s+/)
      .filter((x) => x.length > 2)
      .map((x) => x.slice(0, 40));
    // A harness's standing instructions to its agent (SWE-agent's template under INSTRUCTIONS:, repeated in every
    // session) are the task statement's, not the person's rules: only what is left without them is read.
    const typed = humanPart(s.span[i]!.text).text;
    const harness = typed !== humanPart(s.span[i]!.text, { keepHarness: true }).text;
    const inTyped = (x: string) => !harness || squeeze(typed).includes(squeeze(x).slice(0, 40));
    const scoped = taskSentences(typed);
    const whole = typedSentences(typed).filter((x) => {
      const w = squeeze(x);
      return said.includes(w.slice(0, 40)) || starts.some((start) => w.startsWith(start));
    });
    const sentences = whole.length ? whole : typedSentences(c.text.replace(/\s*…\s*/g, "\n")).filter(inTyped);
    const rules = sentences.filter((x) => standingRule(x) && !boundToTask(x, scoped));
    for (const sentence of rules.map((x) => x.replace(BULLET, ""))) {
      drafts.push({
        category: "commitment",
        text: sentence,
        record: { by: "user", kind: "rule", scope: "project", caveats: "" },
        key: signature(sentence),
        confidence: 0.8,
        evidence: s.ev(c.turn, sentence),
        files: [],
      });
    }
  }
  return drafts;
}

/**
 * The units of a span's events: one `change` per request that led to edits and per commit, one `dead_end` per revert, one
 * `failure` per error with where it was hit and what resolved it, one `commitment` (kind rule) per standing rule.
 */
export function eventDrafts(sessionId: string, span: readonly Turn[], sections: Sections): UnitDraft[] {
  const s = spanEvents(sessionId, span, sections);
  const changes = changeDrafts(s);
  return [
    ...changes.drafts,
    ...commitDrafts(s, changes.carriers),
    ...revertDrafts(s),
    ...undoDrafts(s),
    ...failureDrafts(s, sections),
    ...ruleDrafts(s, sections),
  ];
}
