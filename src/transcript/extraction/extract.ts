// Facts of a span of turns: intent, constraints, failures, decisions, completed work, metrics, state and next steps.
import type { Fact, Failure, Metric, Sections, ToolCall, Turn } from "../../conversation/schema.js";
import { signature } from "../../text/signature.js";
import {
  disproved,
  endFacts,
  onlyAnnounces,
  reportsDone,
  stoppedMidWork,
  tidyOpen,
  tidyState,
  unansweredLast,
  unansweredRequest,
} from "../events/end-state.js";
import {
  callsWithResults,
  doneByEvents,
  type EventState,
  eventState,
  runsGitCommit,
  sessionEvents,
  settleFailures,
} from "../events/events.js";
import { failures, isDeclined } from "../events/failures.js";
import { commandText, displayPath, fileEvents } from "../events/ledger.js";
import { clipWords, wholeSentences } from "../rendering/clip.js";
import { humanPart } from "./human.js";
import { askingProbability, classifyTurn, standingInstructions, throwawayMessage } from "./human-classes.js";

export { failures, failureWeight } from "../events/failures.js";

/** Turns that are conversation (not injected instructions, not a subagent talking to its parent). */
export function conversational(t: Turn): boolean {
  return t.kind === "message" && !t.sidechain;
}

/** Sentences end at . ! ? followed by a space or the end, or at a line break: `Circle.area` stays whole. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 2);
}

function clip(s: string, max: number): string {
  return clipWords(s, max);
}

/** Distinct tag names whose closing tag is looked for: bounds the scan on text full of made-up tags. */
const MAX_TAG_NAMES = 64;

/** Removes `<name>…</name>` blocks (any case) in one forward pass; a tag never closed stays as text. */
export function stripTagBlocks(text: string): string {
  const lower = text.toLowerCase();
  const nextClose = new Map<string, number>();
  const opener = /<([a-z_-]{1,40})>/g;
  let out = "";
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = opener.exec(lower)) !== null) {
    const name = m[1]!;
    let close = nextClose.get(name);
    if (close === undefined && nextClose.size >= MAX_TAG_NAMES) continue;
    if (close === undefined || (close >= 0 && close < opener.lastIndex)) {
      close = lower.indexOf(`</${name}>`, opener.lastIndex);
      nextClose.set(name, close);
    }
    if (close < 0) continue;
    out += `${text.slice(pos, m.index)} `;
    pos = close + name.length + 3;
    opener.lastIndex = pos;
  }
  return out + text.slice(pos);
}

/** Removes fenced code and quoted tool output: what is left is what a person or the agent said. */
export function prose(text: string): string {
  return stripTagBlocks(text.replace(/```[\s\S]*?(```|$)/g, " ")).replace(/^\s*>.*$/gm, "");
}

/** Prose without tool-call markup an export leaves in the agent's text (`Tool use: **todo_write**`, details). */
function spoken(text: string): string {
  return prose(text)
    .replace(/^.*\bTool (?:use|call|Use|Call):?\s*\*\*[\w.-]+\*\*.*$/gm, "")
    .replace(/<\/?(?:details|summary)[^>]*>/gi, " ")
    .replace(/^\s*[-*]\s*\[[ xX~>-]\]\s.*$/gm, "");
}

/** A sentence without the bullet or number that opened its line in the source. */
function unbullet(s: string): string {
  return s.replace(/^(?:\s*(?:[-*•+]|\d+[.)])\s+)+/, "").trim();
}

/** The agent's sentences in its own messages (code, quoted output and bullets removed), each with its turn. */
export function agentSentences(turns: readonly Turn[]): { text: string; turn: string }[] {
  const out: { text: string; turn: string }[] = [];
  for (const t of turns) {
    if (t.role !== "assistant" || !conversational(t)) continue;
    for (const raw of sentences(spoken(t.text))) out.push({ text: unbullet(raw).replace(/\*\*/g, ""), turn: t.id });
  }
  return out;
}

/** What the person typed in a user turn, without injected blocks; empty when the turn is not theirs. */
function typed(t: Turn): string {
  if (t.role !== "user" || !conversational(t)) return "";
  const human = humanPart(t.text).text;
  return (prose(human).trim() || human).trim();
}

/** Classes of a typed turn that ask for work: they open a phase and say what the session is for. */
const ASKS = new Set(["instruction", "request", "problem"]);

/** Classes of a typed turn that reply rather than ask: thanks, `that works`, an answer. */
const REPLIES = new Set(["answer", "chitchat"]);
const replies = (text: string): boolean => REPLIES.has(classifyTurn(text, "message"));

/** Whether a typed turn asks for work (the human-turn classifier says request, instruction or problem). */
export const asksForWork = (text: string): boolean => ASKS.has(classifyTurn(text, "message"));

/**
 * The person's standing instructions, verbatim: only the turns the human-turn classifier calls a standing
 * instruction, by their instruction sentences, each whole (human-classes.ts).
 */
export function userConstraints(turns: Turn[]): Fact[] {
  return standingInstructions(turns.filter(conversational));
}

const DAY = String.raw`\d{4}-\d{2}-\d{2}`;
const TIME = String.raw`[ T]\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?Z?`;
/** A date or time an export appends to a session's title: `(2025-06-21 14:12Z)`, `- 2025-03-26 00:32:05`, a bare
 * `2026-05-21 06:41:40Z`; a date that is part of the title's words (`Migrate to schema 2025-01-01`) stays. */
const TITLE_STAMP = new RegExp(
  String.raw`\s*(?:\(\s*${DAY}(?:${TIME})?\s*\)|[-–—]\s*${DAY}(?:${TIME})?|(?:^|\s)${DAY}${TIME}|^${DAY})\s*$`,
);
/** A turn asks for work, for the intent, when the turn model gives instruction, request and problem this much. */
const HALF = 0.5;
/** Classes of a typed turn that never state what the session is for. */
const NOT_GOAL = new Set(["chitchat", "answer", "pasted", "not_human"]);
const squash = (x: string): string => x.toLowerCase().replace(/\s+/g, " ").trim();
/** A bare greeting or acknowledgement: a turn that asks for nothing, whatever the classifier makes of so few words. */
const GREETING =
  /^(?:(?:hey|hi|hello|yo|hiya|good (?:morning|afternoon|evening)|thanks|thank you|ok(?:ay)?|yes|yep|yup|sure|cool|great|nice|there)[\s!.,?:)]*)+$/i;

/** A title restates a request when at least this share of its words (three letters or more) are the request's. */
const RESTATED = 2 / 3;
const titleWords = (x: string): string[] => x.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];

/** Whether `title` says no more than `request`: most of its words are among the request's. */
function restates(title: string, request: string): boolean {
  const ws = titleWords(title);
  const rs = new Set(titleWords(request));
  return ws.length > 0 && ws.filter((w) => rs.has(w)).length >= RESTATED * ws.length;
}

/**
 * The session's intent: the first turn that asks for work (the classifier calls it a request, an instruction or a
 * problem, or gives those together half or more: a request typed beside a pasted link still asks), passing over
 * throwaway messages (`hi`, `test`, a client command such as `/run uv sync`, a file name alone); else the first typed
 * turn that is not chit-chat or an answer; and the export's title without its date. A title that is only the opening words of a typed turn (an
 * export names a session by its first message, cut short) is not kept as such: that turn's own words stand in for
 * it when it is not the asking turn already; nor is a title whose words are mostly the asking turn's.
 */
export function intents(turns: Turn[], title: string | undefined): Fact[] {
  const users = turns.filter((t) => typed(t).length > 0);
  const classes = new Map(users.map((t) => [t, GREETING.test(typed(t)) ? "chitchat" : classifyTurn(t.text, t.kind)]));
  // A throwaway message (`hi`, `test`, `/run uv sync`, a file name alone) does not say what the session is for.
  // A word above pasted code (`fix` over a fenced traceback) asks about that code: a task, told with the code.
  const overCode = (t: Turn) => throwawayMessage(typed(t)) && /```/.test(humanPart(t.text).text);
  const said = users.filter((t) => classes.get(t) !== "chitchat" && (overCode(t) || !throwawayMessage(typed(t))));
  const told = (t: Turn) =>
    overCode(t)
      ? humanPart(t.text)
          .text.replace(/```[\w-]*/g, " ")
          .replace(/\s+/g, " ")
          .trim()
      : typed(t);
  const asking = said.filter((t) => ASKS.has(classes.get(t)!) || askingProbability(t.text, t.kind) >= HALF);
  const out: Fact[] = [];
  const first =
    asking[0] ?? said.find((t) => !NOT_GOAL.has(classes.get(t)!)) ?? users.find((t) => !NOT_GOAL.has(classes.get(t)!));
  const name = title?.replace(TITLE_STAMP, "").trim();
  // A session whose person only answers or acknowledges (a resumed session: `continue`) still has its title.
  const anchor = first ?? users[0];
  if (name && anchor) {
    const cut = squash(name).replace(/[.…]+$/, "");
    const source = users.find((t) => (cut.length >= 8 ? squash(typed(t)).startsWith(cut) : squash(typed(t)) === cut));
    // A title that only restates the asking turn (`Console Output Assistance` for `Help me with the console output`)
    // adds nothing to it: to the part of it kept below, not to words of a long paste cut from it.
    if (!source) {
      if (!(first && restates(name, clip(typed(first), 300)))) out.push({ text: clip(name, 160), turn: anchor.id });
    } else if (source !== first && said.includes(source))
      // A title cut from a throwaway first message (`test`, `/run uv sync`) says no more than the message.
      out.push({ text: clip(typed(source), 300), turn: source.id });
  }
  if (first) out.push({ text: clip(told(first), 300), turn: first.id });
  return out;
}

/**
 * A choice in the agent's words: `instead of`, `rather than`, `switch to`, `decided`, `going with`, `I recommend`.
 * Kept only where the agent then carried it out (an edit before the person spoke again).
 */
const CHOICE = /\b(?:instead of|rather than)\b/i;
/** A choice named as one (`decided to`, `going with`, `switch to`): kept whether or not an edit followed at once. */
const CHOSE =
  /\b(?:I decided|we decided|decided to|switch(?:ed|ing)? to|I chose|we chose|chose to|going with|opt(?:ed)? for)\b/i;
/** A recommendation: a choice once it is carried out or the person takes it up, else only advice. */
const RECOMMEND = /\b(?:I recommend|I'd recommend|I would recommend|recommended option)\b/i;
/** The agent choosing in a sentence (`I`, `we`, `let's`); `you` names the person a recap tells what they now get. */
const AGENT_CHOOSER = /\b(?:I|I['’](?:ll|d|m|ve)|we|we['’](?:ll|d|re|ve)|let['’]?s|us|our)\b/i;
/** An entry of a labelled list (`Address Fields: fixed to use …`, `✅ Better Performance: …`): a recap of work done or of
 * findings, not a choice, unless the agent chooses in it (`Decision: we'll keep … instead of …`). */
const RECAP_ITEM = /^[^\p{L}\p{N}`]*[\p{L}\p{N}`][^\s:]*(?:\s+[^\s:]+){0,4}:\s+\S/u;
/** A reason given with a choice: `… because it quotes commas correctly`, `… so that the logger flushes`. */
const REASON = /\b(?:because|so that|since it|to avoid|to keep|to make sure|which (?:keeps|avoids|lets))\b/i;
/** The agent committing to a change it then makes: `I'll update the Product model to …`, `I will wrap …`. */
const WILL_DO =
  /^(?:(?:ok(?:ay)?|great|sure|now|so|first|next|then|alright|right)[,!.]?\s+)*(?:I|we)(?:['’]ll| will| am going to|['’]m going to| are going to) (?!(?:check|look|inspect|read|examine|see|verify|run|search|investigate|start|begin|first|now|also|take|review|explore|analy[sz]e|test|try|debug|help|explain|need|have|keep|continue|find|open|get|wait|summari[sz]e|confirm|quickly|do|be|make sure|let|provide|show|walk|go|proceed|answer|write up|report|view|execute|compile|query|fetch|call|list|print|rerun|re-run|navigate|click|reproduce|implement the|make (?:those|these|the) changes)\b)\w+/i;
/** A concrete target of a change: a path, a file name (`App.vue`, `main.c`, a `Dockerfile`), a code identifier
 * (camelCase, PascalCase, snake_case, `MAX_RETRIES`), a command-line flag (`--dry-run`), code in backquotes, or a
 * numbered object (`field 51000`, `table 51012`). */
const CONCRETE =
  /[\w-]+\/[\w./-]+|\b[\w-]{2,}\.[a-z][a-z0-9]{0,5}\b|\b(?:Dockerfile|Makefile|Gemfile|Rakefile|Procfile|Jenkinsfile|Podfile|Vagrantfile|Containerfile|Justfile)\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|\b[A-Za-z][A-Za-z0-9]*_\w+\b|(?:^|\s)--[a-z][\w-]*\b|`[^`]+`|\b\d{2,}\b/;
/** A step taken to look at the problem, not a choice about the work: `I'll create a script to reproduce the bug`. */
const TO_LOOK =
  /\bto (?:reproduce|verify (?:that|whether|if)|confirm (?:that|whether|if)|check (?:that|whether|if))\b/i;
/** A diagnosis or the narration of a next look, not a choice: `The issue is …`, `Let me try a better approach`,
 * `Instead of X, let me check …`, `This might be a runtime error`, `I can see that …`. */
const NOT_CHOICE =
  /^(?:(?:instead of|rather than)\b[^,]*,\s*)?(?:the (?:root )?(?:cause|issue|problem|error|reason|fix)\b|this (?:error|issue|problem)\b|let(?:'s| me| us)\b|now let|i (?:can )?see\b|it seems|it looks|looks like|if you\b|you (?:can|could|might|may)\b|remember\b|note that\b|keep in mind\b|(?:this|that|which|it) (?:should|will|would|might|may|could)\b)|\?$/i;
/** The agent binding itself to a rule: `I will not run any build commands`, `I'll only edit the tests`. */
const COMMITMENT =
  /^(?:(?:understood|ok(?:ay)?|got it|noted|sure)\b[\s,.!:;—–-]*)?(?:I|we)(?: will| shall|['’]ll) (?:not|never|only|no longer|always)\b|^(?:(?:understood|ok(?:ay)?|got it|noted|sure)\b[\s,.!:;—–-]*)?(?:I|we) won['’]?t\b/i;

/** A heading that opens the agent's plan: `**Plan:**`, `## Proposed approach`. */
const PLAN_HEAD =
  /^\s*(?:#{1,6}\s*)?(?:\*\*)?(?:my |the |proposed |implementation |fix |revised |updated )?(?:plan|approach|strategy)(?: of action)?\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$/i;
const LIST_ITEM = /^\s*(?:[-*•+]|\d+[.)])\s+(.+)$/;

/** The items of each plan the agent laid out: the list right under a plan heading, outside code. */
function planItems(text: string): string[] {
  const ls = text.replace(/```[\s\S]*?(```|$)/g, " ").split("\n");
  const out: string[] = [];
  ls.forEach((l, i) => {
    if (!PLAN_HEAD.test(l)) return;
    for (let j = i + 1; j < ls.length && out.length < 12; j++) {
      const item = LIST_ITEM.exec(ls[j]!)?.[1];
      if (item) out.push(item.replace(/\*\*/g, "").trim());
      else if (ls[j]!.trim() || out.length > 0) break;
    }
  });
  return out;
}

/** A branch the work moved to: `git checkout -b NAME`, `git switch -c NAME`, `git worktree add … -b NAME`. */
const NEW_BRANCH = /\bgit\s+(?:checkout\s+-[bB]|switch\s+-[cC]|worktree\s+add\b[^\n;&|]*?\s-[bB])\s+["']?([\w./-]+)/;

/** The agent's last message before turn `i`, when the person has not spoken since (its prose). */
function agentSaidBefore(turns: Turn[], i: number): string | undefined {
  for (let j = i - 1; j >= 0; j--) {
    const t = turns[j]!;
    if (typed(t)) return undefined;
    if (t.role !== "assistant" || !conversational(t)) continue;
    const said = spoken(t.text);
    if (said.trim()) return said;
  }
  return undefined;
}

/** The question the agent asked in `said`: its last question, passing over a closing offer of other work (`Or do
 * you have a different task …?`) when an earlier question sets out the choice. */
function questionIn(said: string): string | undefined {
  const q = sentences(said)
    .map(unbullet)
    .filter((x) => x.endsWith("?"));
  const last = q[q.length - 1];
  return last && /^or\b/i.test(last) && q.length > 1 ? q[q.length - 2] : last;
}

const escapeRe = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The options `said` sets out in bold, when it names two or more. */
function boldOptions(said: string): string[] {
  const bold = [...said.matchAll(/\*\*([^*\n]{2,30})\*\*/g)].map((m) => m[1]!.replace(/[.:]$/, "").trim());
  const distinct = [...new Map(bold.map((b) => [b.toLowerCase(), b])).values()];
  return distinct.length >= 2 && distinct.length <= 6 ? distinct : [];
}

/** The option an answer names by its number or letter (`Option 1, also for vendors`, `B`), as `said` labels it
 * (`**Option 1: Add field 51000 to the mapping table**`, `2. Keep both`): its text. */
function optionNamed(said: string, answer: string): string | undefined {
  const m = /^\s*(?:option|choice|approach)?\s*#?([1-9]|[a-e])\b(?![.'’]\w)/i.exec(answer);
  if (!m) return undefined;
  const key = escapeRe(m[1]!);
  const labelled = new RegExp(
    `^\\s*(?:[-*•+]\\s*)?(?:#{1,6}\\s*)?(?:\\*\\*)?(?:option|choice|approach)\\s*${key}\\b\\s*[:.)\\-–—]?\\s*(?:\\*\\*)?\\s*(.+)$`,
    "im",
  ).exec(said);
  const listed = /^option|^choice|^approach/i.test(answer)
    ? undefined
    : new RegExp(`^\\s*(?:\\*\\*)?${key}[.)]\\s+(.+)$`, "m").exec(said);
  const text = (labelled ?? listed)?.[1]?.replace(/\*\*/g, "").trim();
  return text && text.length >= 4 ? text : undefined;
}

/** An answer that leaves the choice to the agent (`Do the option you think is best`): no pick of the person's. */
const LEAVES_IT =
  /\b(?:you think is best|you think best|your call|up to you|you decide|whatever you (?:think|recommend|prefer))\b/i;

/** The person's pick in typed turn `i`: an option the agent offered, or a short answer to its question. */
function personPick(turns: Turn[], i: number, said: string): string | undefined {
  const before = agentSaidBefore(turns, i);
  if (!before || LEAVES_IT.test(said)) return undefined;
  const q = questionIn(before);
  const option = said.length <= 300 ? optionNamed(before, said) : undefined;
  if (q && option) return `asked "${clip(q, 140)}": the person chose "${clip(option, 160)}" ("${clip(said, 80)}")`;
  if (q && said.length <= 300 && classifyTurn(turns[i]!.text, turns[i]!.kind) === "answer" && /\w{2}/.test(said))
    return `asked "${clip(q, 140)}": the person chose "${clip(said, 160)}"`;
  // A short reply that names one side of the question's `X or Y` (`Postgres, we already run it.` after `… in Redis or
  // in Postgres?`).
  const side = q && said.length <= SHORT_REPLY ? sideNamed(q, said) : undefined;
  if (side) return `asked "${clip(q!, 140)}": the person chose "${clip(said, 160)}"`;
  // A short reply that names one of the options the agent just set out (`use MIT` after **MIT** / **AGPL-3.0**).
  const offered = boldOptions(before);
  const named = offered.filter(
    (o) => said.length <= 80 && new RegExp(`(?:^|\\W)${escapeRe(o)}(?:$|\\W)`, "i").test(said),
  );
  return named.length === 1 ? `the person chose "${clip(said, 80)}" of ${offered.slice(0, 4).join(", ")}` : undefined;
}

/** The longest reply read as naming one side of an `X or Y` question. */
const SHORT_REPLY = 80;
/** Words that name neither side of a choice. */
const FILLER = new Set([
  "the",
  "a",
  "an",
  "in",
  "on",
  "to",
  "with",
  "use",
  "keep",
  "it",
  "them",
  "should",
  "we",
  "i",
  "you",
]);

/** The words of a reply or a side, names with dots kept (`settings.json`) and a full stop after one dropped. */
const words = (x: string): string[] =>
  (x.toLowerCase().match(/[\p{L}\p{N}_.-]{2,}/gu) ?? [])
    .map((w) => w.replace(/[.-]+$/, ""))
    .filter((w) => w.length >= 2);

/** The side of the question's `X or Y` a reply names when it names exactly one (the words next to the `or`). */
function sideNamed(question: string, reply: string): string | undefined {
  // A reply that asks back (`Is Postgres fast enough?`) weighs a side; it does not pick it.
  if (/[?？]\s*$/.test(reply)) return undefined;
  const m = /(?:^|\s)((?:\S+\s+){0,2}\S+)\s+or\s+(\S+(?:\s+\S+){0,2}?)\s*\?\s*$/i.exec(question);
  if (!m) return undefined;
  const content = (x: string) => words(x).filter((w) => !FILLER.has(w));
  const said = new Set(words(reply));
  const left = content(m[1]!).slice(-1);
  const right = content(m[2]!).slice(0, 1);
  const named = [left, right].filter((ws) => ws.length > 0 && ws.every((w) => said.has(w)));
  return named.length === 1 ? named[0]!.join(" ") : undefined;
}

/** Tools that put a question with options to the person (Claude Code, Codex, Cline). */
const ASK_TOOLS = /^(?:AskUserQuestion|request_user_input|ask_followup_question|ask_user(?:_question)?)$/i;

/** The person's answers to a question tool in turn `t`: `Q` → `A` pairs from a result (Claude Code: `User has
 * answered your questions: "Q"="A".`) or from a call an export shows answered (`**Answer:** …`). */
function toolAnswers(t: Turn): { question: string; answer: string }[] {
  const out: { question: string; answer: string }[] = [];
  for (const r of t.tool_results)
    if (ASK_TOOLS.test(r.name ?? ""))
      for (const m of r.output.matchAll(/"([^"\n]{3,300})"\s*=\s*"([^"\n]{1,300})"/g))
        out.push({ question: m[1]!, answer: m[2]! });
  for (const c of t.tool_calls)
    if (ASK_TOOLS.test(c.name) && typeof c.input.answer === "string" && c.input.answer.trim())
      out.push({ question: typeof c.input.question === "string" ? c.input.question : "", answer: c.input.answer });
  return out;
}

/** Whether `a` adds nothing to `b`: every word of three or more characters of `a` is among `b`'s. */
function within(a: string, b: string): boolean {
  const words = (x: string) => new Set(x.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? []);
  const wa = words(a);
  const wb = words(b);
  return wa.size > 0 && [...wa].every((w) => wb.has(w));
}

/** Whether the agent changed a file from turn `i` on, before the person's next message (true for every turn of a
 * transcript that shows no edit at all: an export without edit markers cannot tell what was carried out). */
function carriedOut(turns: Turn[]): boolean[] {
  const edited = new Set(fileEvents(turns).map((e) => e.turn));
  const carried: boolean[] = new Array<boolean>(turns.length).fill(edited.size === 0);
  let pending = false;
  for (let i = turns.length - 1; i >= 0 && edited.size > 0; i--) {
    const t = turns[i]!;
    if (edited.has(t.id)) pending = true;
    carried[i] = pending;
    if (typed(t)) pending = false;
  }
  return carried;
}

/** Whether the person's next message after turn `i` takes up what the agent proposed (a plain assent). */
function takenUp(turns: Turn[], i: number): boolean {
  for (let j = i + 1; j < turns.length; j++) {
    const said = typed(turns[j]!);
    if (!said) continue;
    return /^(?:yes|yeah|yep|ok(?:ay)?|sure|sounds good|agreed?|go (?:ahead|for it)|do (?:it|that|option)|let['’]?s (?:do|go)|please do|perfect)\b/i.test(
      said,
    );
  }
  return false;
}

/** A choice left open: alternatives still on the table, an example in place of the thing chosen, a hedged opening
 * (`use X or just Y`, `patch whichever side is wrong`, `e.g.`, `Maybe we …`). A hedge inside a reason (`because it
 * might be faster`) does not open the choice again. */
const UNDECIDED = /\b(?:whichever|or just|or maybe|e\.g\.|for example)(?!\w)|^(?:maybe|perhaps|possibly)\b/i;
/** The agent reporting what it is running or checking, not a choice about the work: `I'm installing …`, `Dependency
 * installs are running …`, `I'm switching to the verifications that …`. */
const CHECKING =
  /^(?:[\w-]+\s+){0,3}(?:is|are|am|I['’]m|we['’]re) (?:now )?(?:running|installing|waiting|rerunning|re-running)\b|\bswitch(?:ing)? to (?:the )?(?:verification|check|test)s?\b/i;

/** A report of a change made, opening on its verb with no one choosing (`Updated the sync method to use X instead
 * of Y`, `Uses X instead of a separate field`, `This change removes …`): what was done, said in Completed, not a choice. */
const REPORT_OPENING =
  /^(?:updated|uses|used|fixed|added|changed|moved|replaced|removed|renamed|makes|made|switched|now uses|(?:this|the|that) (?:change|fix|patch|edit|commit)s? (?:removes|adds|makes|uses|changes|replaces|moves))\b/i;

/** Whether an agent's sentence (bullet and bold removed) states a choice (the rules of `decisions`). */
function choiceSentence(s: string, carried: boolean, taken: boolean): boolean {
  // A sentence that ends in a colon introduces the code or the list below it.
  if (s.length < 25 || s.length > 320 || NOT_CHOICE.test(s) || s.endsWith(":")) return false;
  // An example or an alternative named inside the reason (`because … breaks, e.g. on ampersands`) leaves it chosen.
  if (UNDECIDED.test(s.split(REASON)[0]!) || CHECKING.test(s)) return false;
  if (COMMITMENT.test(s) || CHOSE.test(s)) return true;
  if (RECOMMEND.test(s)) return carried || taken;
  // A commitment says what it changes: `I'll make those changes` says nothing a successor can use.
  // Without a reason it must also name what it changes (a path, a file, an identifier): `I'll apply the same logic to
  // the vendor page` or `I will correct the syntax and try again` is narration of the next step.
  if (WILL_DO.test(s) && s.split(/\s+/).length >= 7 && !TO_LOOK.test(s))
    return (carried && CONCRETE.test(s)) || REASON.test(s);
  // A report of a change that gives its reason (`Switched the cache to an LRU map instead of Redis, because …`) is
  // a choice made; without one it is a recap.
  if (REPORT_OPENING.test(s) && !REASON.test(s)) return false;
  // A labelled list entry (`Rich Vendor Creation: you now get …`) recaps work done unless the agent chooses in it.
  return CHOICE.test(s) && (AGENT_CHOOSER.test(s) || !RECAP_ITEM.test(s)) && (carried || REASON.test(s));
}

/**
 * Choices with a reason: the person's pick (an answer to the agent's question, an option it offered, an answer in
 * a question tool), the agent committing to a change or an approach it then carried out (an edit follows before the
 * person speaks again), a recommendation the agent carried out or the person took up, its standing commitments, its
 * plans, and the branches it opened for the work. Diagnoses, reports of work done and narration (`The problem is …`,
 * `Let me …`) are not choices.
 */
export function decisions(turns: Turn[]): Fact[] {
  const out: Fact[] = [];
  const seen = new Set<string>();
  const carried = carriedOut(turns);
  const add = (text: string, turn: string): void => {
    const key = signature(text);
    if (seen.has(key)) return;
    // One line per choice within a turn: a restatement in fewer words adds nothing; a fuller one replaces it.
    const same = out.filter((f) => f.turn === turn);
    if (same.some((f) => within(text, f.text))) return;
    const shorter = same.find((f) => within(f.text, text));
    seen.add(key);
    if (shorter) shorter.text = text;
    else out.push({ text, turn });
  };
  turns.forEach((t, i) => {
    for (const c of t.tool_calls) {
      const b = NEW_BRANCH.exec(commandText(c.input))?.[1];
      if (b && !seen.has(`branch:${b}`)) {
        seen.add(`branch:${b}`);
        out.push({ text: `work on a new branch \`${b}\``, turn: t.id });
      }
    }
    for (const qa of toolAnswers(t))
      add(
        `${qa.question ? `asked "${clip(qa.question, 140)}": ` : ""}the person chose "${clip(qa.answer, 160)}"`,
        t.id,
      );
    const said = typed(t);
    if (said) {
      const pick = personPick(turns, i, said);
      if (pick) add(pick, t.id);
      return;
    }
    if (t.role !== "assistant" || !conversational(t)) return;
    for (const item of planItems(t.text)) {
      if (item.length < 10 || !carried[i]) continue;
      add(`plan: ${clip(item, 240)}`, t.id);
    }
    // Code and a tool call end a sentence (the sentence before them introduces them); a heading is a title, not a sentence.
    const text = spoken(t.text.replace(/```[\s\S]*?(```|$)|<(tool-use|details)\b[\s\S]*?<\/\2>/g, "\n")).replace(
      /^\s*#{1,6}\s.*$/gm,
      "",
    );
    const taken = takenUp(turns, i);
    // A colon before the next narration ends the sentence that introduces it (`…structure: Now let me move …`).
    for (const raw of sentences(text.replace(/:\s+(?=(?:now\s+)?let(?:['’]s| me| us)\b)/gi, ":\n"))) {
      const s = unbullet(raw).replace(/\*\*/g, "");
      if (choiceSentence(s, carried[i]!, taken)) add(clip(s, 260), t.id);
    }
  });
  return out;
}

type Status = "completed" | "in_progress" | "pending" | "cancelled";
interface Todo {
  id?: string;
  content: string;
  status: Status;
}

function status(v: unknown): Status {
  const s = String(v ?? "").toLowerCase();
  if (/^(completed?|done|finished|x)$/.test(s)) return "completed";
  if (/^(in[_ -]?progress|active|doing|started|[-~>])$/.test(s)) return "in_progress";
  if (/^(cancell?ed|skipped|abandoned)$/.test(s)) return "cancelled";
  return "pending";
}

/** Checklist lines (`- [x] done`, `- [ ] open`, `- [in_progress] step`) as plan items. */
function checklist(text: string): Todo[] {
  return [...text.matchAll(/^\s*[-*]\s*\[([ xX~>-]|\w+)\]\s*(.+)$/gm)].map((m) => ({
    content: m[2]!.trim(),
    status: m[1]!.trim() === "" ? "pending" : status(m[1]!.trim()),
  }));
}

/** A plan update: the items a todo tool call writes, and whether it merges into the previous list. */
interface PlanUpdate {
  items: Todo[];
  merge: boolean;
}

const TODO_TOOLS = /^(?:todowrite|todo_write|write_todos|update_plan|update_todos|manage_todo_list|todo)$/i;
/** Plan markup an export leaves in the agent's text: a todo tool's name, then its checklist. */
const TODO_MARKUP =
  /Tool (?:use|call|Use|Call):?\s*\*\*(?:todo_write|TodoWrite|update_plan|write_todos)\*\*[^\n]*\n((?:\s*\n|\s*[-*]\s*\[[^\]]*\].*\n?)+)/g;

function planUpdates(t: Turn): PlanUpdate[] {
  const out: PlanUpdate[] = [];
  for (const c of t.tool_calls) {
    if (!TODO_TOOLS.test(c.name)) continue;
    const list = c.input.todos ?? c.input.plan ?? c.input.items;
    if (Array.isArray(list)) {
      const items = (list as Record<string, unknown>[]).map((x) => ({
        ...(typeof x.id === "string" || typeof x.id === "number" ? { id: String(x.id) } : {}),
        content: String(x.content ?? x.step ?? x.description ?? x.title ?? x.text ?? ""),
        status: status(x.status),
      }));
      out.push({ items, merge: c.input.merge === true });
      continue;
    }
    const text = [c.input.text, c.input.command, c.input.content].find((v) => typeof v === "string") as
      string | undefined;
    const items = text ? checklist(text) : [];
    if (items.length > 0) out.push({ items, merge: false });
  }
  if (t.role === "assistant") {
    for (const m of t.text.matchAll(TODO_MARKUP)) {
      const items = checklist(m[1]!);
      if (items.length > 0) out.push({ items, merge: false });
    }
  }
  return out;
}

/** The plan through a span: each update applied in order, with when each item was first seen done. */
function planOf(turns: Turn[]): { items: (Todo & { turn: string })[]; done: Fact[] } {
  let items: (Todo & { turn: string })[] = [];
  const done: Fact[] = [];
  const doneKeys = new Set<string>();
  for (const t of turns) {
    for (const u of planUpdates(t)) {
      if (u.merge) {
        for (const x of u.items) {
          const old = items.find(
            (y) => (x.id !== undefined && y.id === x.id) || (x.content && y.content === x.content),
          );
          if (old) Object.assign(old, { status: x.status, turn: t.id, ...(x.content ? { content: x.content } : {}) });
          else if (x.content) items.push({ ...x, turn: t.id });
        }
      } else items = u.items.filter((x) => x.content).map((x) => ({ ...x, turn: t.id }));
      for (const x of items) {
        const k = signature(x.content);
        if (x.status === "completed" && !doneKeys.has(k)) {
          doneKeys.add(k);
          done.push({ text: `done: ${x.content}`, turn: t.id });
        }
      }
    }
  }
  // An item done at any point is no longer open, even if a later list repeats it unticked by mistake.
  items = items.filter(
    (x) => !(x.status !== "completed" && doneKeys.has(signature(x.content)) && x.status !== "in_progress"),
  );
  return { items, done };
}

const COMMIT_MSG = /\bgit\s+commit\b[^\n]*?\s-m\s+(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/;
const SHA_LINE = /^\[[\w./-]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$/m;
const PASSING =
  /(\b\d+ (?:passed|passing|tests? passed)\b[^\n]{0,60}|\bAll (?:tests )?(?:OK|passed|pass)\b[^\n]{0,40}|\bTests?:\s+\d+ passed[^\n]{0,40}|\bOK \(\d+ tests?\)|\bBuild succeeded\b|\bCompiled successfully\b)/i;

/** A commit message as written: a heredoc's first line, else the quoted message. */
function commitMessage(m: RegExpExecArray): string {
  const msg = (m[1] ?? m[2] ?? "").replace(/\\"/g, '"');
  const here = /^\$\(cat <<-?'?(\w+)'?\s*([\s\S]*?)(?:\n\s*\1\b|$)/.exec(msg);
  if (!here) return msg;
  return (
    here[2]!
      .split("\n")
      .map((l) => l.trim())
      .find(Boolean) ?? msg
  );
}

/** A file name with an extension: `config.js`, `src/app/page.tsx`. */
const FILE_NAME = /\b[\w./-]+\.[a-z]{1,5}\b(?![\w(])/i;

/** A line that is only a file's name, as a list item or heading: `1. **app/globals.css**`, `### src/a.ts:`. */
const FILE_HEAD = /^\s*(?:(?:[-*•+]|\d+[.)]|#{1,6})\s+)?(?:\*\*)?`?[\w./-]+\.[a-z]{1,5}`?(?:\*\*)?:?(?:\*\*)?\s*$/i;
/** A list item of the agent's report that says what it did: `- Added dark variants to the subtitle class`. */
const REPORTED =
  /^\s*(?:[-*•]|\d+[.)])\s+(?:\*\*)?((?:Added|Updated|Fixed|Removed|Created|Implemented|Refactored|Moved|Renamed|Replaced|Deleted|Converted|Extracted|Consolidated|Changed|Wrapped|Enabled|Disabled|Introduced|Migrated|Rewrote|Split|Merged)\b.{10,})$/;

/** A report list item, and whether it names the file it changed, itself or in the line it sits under
 * (`1. **app/globals.css**` over `- Added dark variants to the subtitle class`). */
interface ReportItem {
  text: string;
  file: boolean;
}

/** Report list items of a text outside code: `- Added dark variants…`. */
function reportedItems(text: string): ReportItem[] {
  const out: ReportItem[] = [];
  let under = false;
  for (const l of text.replace(/```[\s\S]*?(```|$)/g, " ").split("\n")) {
    const item = REPORTED.exec(l)?.[1]?.replace(/\*\*/g, "").trim();
    if (item) out.push({ text: item, file: under || FILE_NAME.test(item) });
    // A line that is only a file's name heads the items below it: they change that file.
    else if (l.trim()) under = FILE_HEAD.test(l);
  }
  return out;
}

/** What the agent reports it did, as list items of its own message (a completion result included), not in code. */
function reported(t: Turn): ReportItem[] {
  if (t.role !== "assistant" || !conversational(t)) return [];
  return reportedItems(t.text);
}

/** A tool that hands work to another agent; its result is that agent's report. */
const DELEGATE = /^(?:agent|task|subagent|dispatch_agent|spawn_agent|delegate)$/i;
/** A commit a delegated agent reports: ``Commit: `cf123a2` — `web(store): persist state` ``, `Commit SHA: aecbdd0`. */
const REPORTED_COMMIT = /\bcommit(?:\s+sha)?\b\**:?\**\s*`?([0-9a-f]{7,40})\b`?(?:\s*[—–-]+\s*`([^`\n]{3,160})`)?/gi;

/** What delegated agents report they did: their commits and their report's list items. */
function delegatedReports(turns: Turn[]): Map<Turn, { commits: string[]; items: ReportItem[] }> {
  const out = new Map<Turn, { commits: string[]; items: ReportItem[] }>();
  let prevCalls: ToolCall[] = [];
  for (const t of turns) {
    // A result answers the call at its position in the same turn, else in the turn that made the calls.
    const calls = t.tool_calls.length > 0 ? t.tool_calls : prevCalls;
    t.tool_results.forEach((r, k) => {
      const call = calls[k] ?? (calls.length === 1 ? calls[0] : undefined);
      if (!call || !DELEGATE.test(call.name) || r.is_error) return;
      const got = out.get(t) ?? out.set(t, { commits: [], items: [] }).get(t)!;
      for (const m of r.output.matchAll(REPORTED_COMMIT)) got.commits.push(`commit ${m[1]}${m[2] ? `: ${m[2]}` : ""}`);
      got.items.push(...reportedItems(r.output));
    });
    if (t.tool_calls.length > 0) prevCalls = t.tool_calls;
  }
  return out;
}

/** List items kept of the report that closes a request's work. */
const REPORT_ITEMS = 3;

/** The phase of each turn: how many requests (typed turns that ask for work) came at or before it. */
function phaseOf(turns: Turn[]): Map<string, number> {
  const asks = new Set(
    sessionEvents(turns).flatMap((e) => (e.type === "request" && asksForWork(e.text) ? [e.turn] : [])),
  );
  const out = new Map<string, number>();
  let n = 0;
  for (const t of turns) {
    if (asks.has(t.id)) n++;
    out.set(t.id, n);
  }
  return out;
}

/** A commit line that says nothing of the change: a bare hash, or a message that is the agent's narration (a client
 * that commits with the model's reply as the message: `I'll help you continue the conversion …`); a message that
 * opens on `Let's` names the change as often as not (`Let's Encrypt certificates renew …`). */
const UNTOLD_COMMIT =
  /^commit(?: [0-9a-f]{7,40})?(?::\s*(?:(?:I['’]ll|I will|I['’]m going to|I am going to|let me|based on|here (?:is|are))\b.*)?)?$/is;

/** Completed work with evidence: commits, finished plan items, the last passing test run, each request's report. */
export function completed(turns: Turn[]): Fact[] {
  const out: Fact[] = [];
  const seen = new Set<string>();
  const add = (text: string, turn: string): void => {
    const k = signature(text);
    if (seen.has(k) || UNTOLD_COMMIT.test(text)) return;
    seen.add(k);
    out.push({ text: clip(text, 240), turn });
  };
  const shas = new Set<string>();
  // A commit whose hash its own turn did not show: the later line that shows it completes this one (one line each).
  const unhashed = new Map<string, Fact>();
  // A command with no result never ran: a commit the agent only suggests in a code block is not done.
  const ran = new Set(callsWithResults(turns).flatMap((x) => (x.result ? [x.call] : [])));
  // Only the last passing run says where the tests stand; the earlier ones are steps on the way.
  let lastPass: Fact | undefined;
  for (const t of turns) {
    for (const c of t.tool_calls) {
      if (c.name === "git_commit") {
        shas.add(String(c.input.sha));
        add(`commit ${String(c.input.sha)}: ${String(c.input.message)}`, t.id);
      }
      const cmd = commandText(c.input);
      const m = ran.has(c) && runsGitCommit(cmd) ? COMMIT_MSG.exec(cmd) : null;
      if (m) {
        const sha = t.tool_results.map((r) => SHA_LINE.exec(r.output)?.[1]).find(Boolean);
        if (sha) shas.add(sha);
        const msg = commitMessage(m);
        add(`commit${sha ? ` ${sha}` : ""}: ${msg}`, t.id);
        const f = out[out.length - 1];
        if (!sha && f?.turn === t.id && f.text.includes(msg.slice(0, 40))) unhashed.set(signature(msg), f);
      }
    }
    for (const r of t.tool_results) {
      const sha = SHA_LINE.exec(r.output);
      if (sha && !shas.has(sha[1]!)) {
        shas.add(sha[1]!);
        const f = unhashed.get(signature(sha[2]!));
        if (f) {
          f.text = clip(`commit ${sha[1]}: ${f.text.replace(/^commit: /, "")}`, 240);
          unhashed.delete(signature(sha[2]!));
        } else add(`commit ${sha[1]}: ${sha[2]}`, t.id);
      }
      const pass = PASSING.exec(r.output);
      if (pass && !r.is_error) lastPass = { text: `verified: ${pass[1]!.trim()}`, turn: t.id };
    }
  }
  const delegated = delegatedReports(turns);
  // A request's work is told by the last report before the next request: earlier reports of the same phase are
  // steps on the way (or were redone), and a report is a few lines, not its whole list.
  const reports = new Map<number, { turn: string; items: ReportItem[] }>();
  const phase = phaseOf(turns);
  for (const t of turns) {
    const d = delegated.get(t);
    for (const c of d?.commits ?? []) add(c, t.id);
    const items = [...reported(t), ...(d?.items ?? [])];
    if (items.length > 0) reports.set(phase.get(t.id) ?? 0, { turn: t.id, items });
  }
  for (const r of reports.values()) {
    // The items that name the file they changed (or sit under its name): an item that names none (`Added Reset
    // default button`) cannot be told apart from a detail, and the changes themselves are in Files Modified.
    const kept = r.items.filter((x) => x.file).slice(0, REPORT_ITEMS);
    for (const item of kept) add(`reported: ${item.text}`, r.turn);
  }
  if (lastPass) add(lastPass.text, lastPass.turn);
  const ids = new Map(turns.map((t, i) => [t.id, i]));
  const all = [...out, ...planOf(turns).done.filter((d) => !seen.has(signature(d.text)))];
  return all.sort((a, b) => (ids.get(a.turn) ?? 0) - (ids.get(b.turn) ?? 0));
}

/**
 * Open work: the plan's unfinished items as they stand at the end when the plan was written or updated after
 * position `from` (the last request), else the agent's own stated next steps in its last message.
 */
export function nextSteps(turns: Turn[], from = 0): Fact[] {
  const plan = planOf(turns);
  const at = new Map(turns.map((t, i) => [t.id, i]));
  const open = plan.items.filter((x) => x.status === "pending" || x.status === "in_progress");
  if (open.some((x) => (at.get(x.turn) ?? 0) >= from))
    return open.map((x) => ({ text: `${x.content} (${x.status})`, turn: x.turn }));
  const last = lastSaid(turns, 0);
  if (last && (at.get(last.id) ?? 0) < from) return [];
  if (!last) return [];
  // The items under the message's own `Next steps` / `Follow-ups` / `Remaining` heading, else its sentences that name
  // open work in so many words; what the code will do (`The procedure will skip …`) is not a step.
  const listed = headedItems(last.text, OPEN_HEAD);
  const picked =
    listed.length > 0
      ? listed
      : sentences(spoken(last.text))
          .map(unbullet)
          .filter((x) => OPEN_WORK.test(x) && !x.endsWith(":"));
  // A line that reports work done (`I've added a next-steps section`) is not open, whatever words it uses.
  const steps = picked.filter((x) => !reportsDone(x));
  return steps.slice(0, 5).map((x) => ({ text: clip(x, 220), turn: last.id }));
}

/** A heading over the open work in an agent's report: `### Open follow-ups`, `**Next steps:**`, `Remaining:`. */
const OPEN_HEAD =
  /^\s*(?:#{1,6}\s*)?(?:\*\*)?(?:[\w-]+\s+){0,2}(?:next steps?|follow-?ups?|remaining(?: work| items)?|todo|to do|open items|still to do|left to do)\b[^\n]{0,40}$/i;
/** A sentence that names open work: `Next, …`, `still need to`, `not yet`, `you'll need to restart …`. */
const OPEN_WORK =
  /^next[,:]|\bnext steps?\b|\bstill (?:need|have) to\b|\bnot (?:yet|been) (?:done|implemented|tested|run|wired|verified)\b|\bremaining\b|\bleft to do\b|\b(?:you(?:'ll| will)?|we(?:'ll| will)?) (?:still )?need to\b|\bTODO\b|\bfollow-?up\b/i;

/** The list items right under a heading line that matches `head`, outside code. */
function headedItems(text: string, head: RegExp): string[] {
  const ls = text.replace(/```[\s\S]*?(```|$)/g, " ").split("\n");
  const out: string[] = [];
  ls.forEach((l, i) => {
    if (!head.test(l.replace(/\*\*/g, ""))) return;
    for (let j = i + 1; j < ls.length && out.length < 8; j++) {
      const item = LIST_ITEM.exec(ls[j]!)?.[1];
      if (item) out.push(item.replace(/\*\*/g, "").trim());
      else if (ls[j]!.trim() || out.length > 0) break;
    }
  });
  return out;
}

/** The agent's last turn that says something (more than `min` characters of prose). */
function lastSaid(turns: Turn[], min: number): Turn | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    if (t.role === "assistant" && conversational(t) && spoken(t.text).trim().length > min) return t;
  }
  return undefined;
}

/** The agent announcing its next action ("Let me check…", "Now I'll run…", "Read file: x"): narration, not state. */
const NARRATION =
  /^(?:(?:great|perfect|good|ok(?:ay)?|excellent|now|first|next|then|also)[!,.]?\s+)*(?:let me|let's|i'll|i will|i'm going to|i need to|read file:|searched|listed)\b[^.!?]*[.!?:]?$/i;

/**
 * What an agent turn says about the work: its prose without narration of the next action. A report longer than
 * `max` keeps its opening sentence and then its closing sentences, where a report states its conclusion.
 */
function stateText(t: Turn, max: number): string {
  const ls = spoken(t.text)
    .split("\n")
    .map((l) => unbullet(l.replace(/^\s*#{1,6}\s+/, "")))
    .filter(Boolean);
  const said = (ls.flatMap((l) => sentences(l)).filter((x) => !NARRATION.test(x)) as string[]).map((x) =>
    x.replace(/\s+/g, " "),
  );
  const all = said.length > 0 ? said : ls;
  const whole = all.join(" ");
  if (whole.length <= max || all.length < 3) return clip(whole, max);
  const first = clip(all[0]!, Math.floor(max / 4));
  const tail: string[] = [];
  let len = first.length + 3;
  for (let i = all.length - 1; i > 0; i--) {
    const x = all[i]!;
    if (len + x.length + 1 > max) break;
    tail.unshift(x);
    len += x.length + 1;
  }
  if (tail.length === 0) return clip(whole, max);
  return `${first} … ${tail.join(" ")}`;
}

/** The agent's words that close the last stretch of work (after the last edit or commit), when it spoke then. */
function workReport(turns: Turn[]): Turn | undefined {
  const edited = new Set(fileEvents(turns).map((e) => e.turn));
  let at = -1;
  turns.forEach((t, i) => {
    if (edited.has(t.id) || t.tool_calls.some((c) => c.name === "git_commit" || COMMIT_MSG.test(commandText(c.input))))
      at = i;
  });
  if (at < 0) return undefined;
  let report: Turn | undefined;
  for (let i = at; i < turns.length; i++) {
    const t = turns[i]!;
    if (typed(t)) break;
    if (t.role === "assistant" && conversational(t) && spoken(t.text).trim().length > 20) report = t;
  }
  return report;
}

/** The agent's answer the person last replied to: its last words before the person's latest message. */
function lastAnswered(turns: Turn[]): Turn | undefined {
  let i = turns.length - 1;
  while (i >= 0 && !typed(turns[i]!)) i--;
  for (i--; i >= 0; i--) {
    const t = turns[i]!;
    if (typed(t)) return undefined;
    if (t.role === "assistant" && conversational(t) && spoken(t.text).trim().length > 20) return t;
  }
  return undefined;
}

/**
 * Where things stand: the answer the person last replied to, the report that closed the last work, the agent's last
 * words, and the plan item in progress.
 */
export function currentState(turns: Turn[]): Fact[] {
  const out: Fact[] = [];
  const last = lastSaid(turns, 20);
  const report = workReport(turns);
  const answered = lastAnswered(turns);
  const at = new Map(turns.map((t, i) => [t, i]));
  const said = [answered, report].filter((t): t is Turn => t !== undefined && t !== last);
  for (const t of [...new Set(said)].sort((a, b) => at.get(a)! - at.get(b)!))
    out.push({ text: stateText(t, 600), turn: t.id });
  if (last) out.push({ text: stateText(last, 900), turn: last.id });
  for (const x of planOf(turns).items)
    if (x.status === "in_progress") out.push({ text: `in progress: ${x.content}`, turn: x.turn });
  return out;
}

/**
 * Open questions, unresolved failures and the person's interruptions at the end of the span: from position `from`
 * (the last request) on when given, else failures of the last 15% of the turns and every interruption.
 */
export function blockers(turns: Turn[], fails: Failure[], from?: number): Fact[] {
  const out: Fact[] = [];
  const tail = new Set(turns.slice(from ?? Math.floor(turns.length * 0.85)).map((t) => t.id));
  // Given the last phase's start, what the person stopped or declined before it was answered by a new request.
  const phase = from === undefined ? new Set(turns.map((t) => t.id)) : tail;
  for (const f of fails)
    if (f.open ?? (from === undefined && tail.has(f.last_turn) && !f.remediation && !f.resolved))
      out.push({ text: `unresolved: ${f.text}${f.count > 1 ? ` (×${f.count})` : ""}`, turn: f.last_turn });
  // The person stopped the agent, or declined a call: what it was doing may not be wanted. The latest two of each
  // are kept.
  const stops: Fact[] = [];
  const declined: Fact[] = [];
  let lastCall: ToolCall | undefined;
  const during = (c: ToolCall | undefined): string =>
    c ? ` (during ${c.name}${commandText(c.input) ? `: ${clip(commandText(c.input), 60)}` : ""})` : "";
  const callById = new Map<string, ToolCall>();
  for (const t of turns) {
    if (t.tool_calls.length > 0) lastCall = t.tool_calls[t.tool_calls.length - 1];
    for (const c of t.tool_calls) if (c.id) callById.set(c.id, c);
    // A call the person declined stops the agent the same way: its own words say so.
    for (const r of t.tool_results)
      if (isDeclined(r.output)) {
        const said = r.output.trim().split("\n")[0]!.trim();
        const call = (r.call_id ? callById.get(r.call_id) : undefined) ?? lastCall;
        declined.push({ text: `${clip(said, 120)}${during(call)}`, turn: t.id });
      }
    if (t.role !== "user" || t.kind !== "meta" || humanPart(t.text).injected !== "interrupt") continue;
    stops.push({ text: `Request interrupted by user${during(lastCall)}`, turn: t.id });
  }
  const inTail = (f: Fact) => phase.has(f.turn);
  out.push(...stops.filter(inTail).slice(-2), ...declined.filter(inTail).slice(-2));
  const last = lastSaid(turns, 0);
  if (last && phase.has(last.id))
    for (const s of sentences(spoken(last.text)))
      if (s.endsWith("?") && s.length > 15) out.push({ text: clip(unbullet(s), 200), turn: last.id });
  return out.slice(0, 8);
}

/** Test counts of a summary line: `Tests 1 failed | 121 passed (122)`, `3 passed, 1 failed in 0.12s`. */
const COUNTS = /\b(\d+)\s+(passed|failed|failing|passing|skipped|errors?|todo|pending)\b/gi;
const TEST_LINE = /\b(?:tests?|specs?|passed|failed|pytest|examples?)\b/i;
const DURATION =
  /\b(?:Time|Duration|took|elapsed|Done in|Finished in|Ran \d+ tests? in|real)\b[:\s]*(\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|m|min|minutes?)\b/i;
const COVERAGE = /\b(?:coverage|All files)\b[^\d%]{0,20}(\d+(?:\.\d+)?)\s*%/i;
const SIZE = /\b(?:bundle size|size|First Load JS)\b[^\d]{0,20}(\d+(?:\.\d+)?)\s*(B|kB|KB|MB|GB)\b/;

/** The command a result answers, short, as a metric's context. */
function contextOf(call: ToolCall | undefined): string {
  const cmd = call ? commandText(call.input) : "";
  const first =
    cmd
      .split("\n")
      .map((l) => l.trim())
      .find((l) => /[a-z]{2}/i.test(l) && !/^[{["']/.test(l))
      ?.replace(/^cd\s+\S+\s*&&\s*/, "") ?? "";
  return first ? clip(first, 48) : (call?.name ?? "");
}

/** Numbers the session measured, as `name: value unit (context)`, the latest value per metric with its history. */
export function metrics(turns: Turn[]): Record<string, Metric> {
  const out: Record<string, Metric> = {};
  const put = (name: string, value: string, context: string, turn: string): void => {
    const v = context ? `${value} (${context})` : value;
    const prev = out[name];
    out[name] = { value: v, turn, history: [...(prev?.history ?? []), { value, turn }].slice(-5) };
  };
  let prevCalls: ToolCall[] = [];
  for (const t of turns) {
    t.tool_results.forEach((r, k) => {
      const ctx = contextOf(t.tool_calls[k] ?? prevCalls[k] ?? prevCalls[0]);
      let tests: string | undefined;
      let duration: string | undefined;
      for (const raw of r.output.split("\n")) {
        const line = raw.trim();
        if (line.length > 200 || NOT_METRIC.test(line)) continue;
        if (TEST_LINE.test(line)) {
          const counts = [...line.matchAll(COUNTS)].map((m) => `${m[1]} ${m[2]!.toLowerCase()}`);
          if (counts.length > 0) tests = [...new Set(counts)].join(", ");
        }
        const d = DURATION.exec(line);
        if (d && Number(d[1]) > 0)
          duration = `${d[1]} ${d[2]!.replace(/^(sec|seconds?)$/, "s").replace(/^(min|minutes?)$/, "min")}`;
        const c = COVERAGE.exec(line);
        if (c) put("coverage", `${c[1]} %`, ctx, t.id);
        const z = SIZE.exec(line);
        if (z) put("size", `${z[1]} ${z[2]}`, ctx, t.id);
      }
      if (tests) put("tests", tests, ctx, t.id);
      if (tests && duration) put("test time", duration, ctx, t.id);
    });
    if (t.tool_calls.length > 0) prevCalls = t.tool_calls;
  }
  return out;
}
/** Lines that only look like measurements: numbered source, code, diffs. */
const NOT_METRIC = /^\s*\d+(?:\s*[→│|\t]|:\s| {2,}\S)|^[+-](?![+-])|^\s*(?:\/\/|#|\*|print|console\.|assert|expect)\b/;

/** A title that is only a date or time (an export's default) says nothing about the session. */
const DATE_TITLE = /^[\d\s:./TZ+-]+$|^\w+ \d{1,2},? \d{4}/;

/** Which typed turns open a phase of work: not thanks or a bare acknowledgement. */
export type RequestTest = (text: string) => boolean;

/** All sections for a span of turns; `after` (turns past the span) only settles which plan items got done. */
export function extractSections(
  turns: Turn[],
  opts: { title?: string | undefined; cwd?: string | undefined; after?: Turn[]; isRequest?: RequestTest } = {},
): Sections {
  const withAfter = opts.after && opts.after.length > 0 ? [...turns, ...opts.after] : turns;
  const st: EventState = eventState(sessionEvents(withAfter), opts.isRequest ?? asksForWork);
  const index = new Map(withAfter.map((t, i) => [t.id, i]));
  // The last phase: from the last request on. A request among the kept turns (past the span) starts after the whole
  // span: what the span left open was settled by the person moving on to new work.
  const from = st.lastRequestAt >= 0 ? Math.min(st.lastRequestAt, turns.length) : Math.floor(turns.length * 0.85);
  const fails = settleFailures(failures(turns, opts.cwd), st.events, from, index);
  // What is open at the end of the session (blockers, next steps) is read from its whole last phase, kept turns too.
  const end = st.lastRequestAt >= 0 ? st.lastRequestAt : Math.floor(withAfter.length * 0.85);
  const endFails = withAfter === turns ? fails : settleFailures(failures(withAfter, opts.cwd), st.events, end, index);
  const files: Sections["files"] = {};
  // Edits in the kept turns are files the session changed too (as their commits are work completed).
  for (const e of fileEvents(withAfter)) {
    const p = displayPath(e.path, opts.cwd);
    (files[p] ??= []).push({ op: e.op, turn: e.turn });
  }
  for (const [path, r] of st.reverted) {
    const p = displayPath(path, opts.cwd);
    if (files[p]) files[p].push({ op: `reverted (${r.how})`, turn: r.turn });
  }
  const doneLater = new Set(planOf(withAfter).done.map((d) => signature(d.text.replace(/^done: /, ""))));
  // A plan item is done when a later list ticks it, or when later events carry it out (a commit, a clean test run).
  const byEvents = (text: string, turn: string) => doneByEvents(text, index.get(turn) ?? 0, st.events);
  const ended = endFacts(st, (p) => displayPath(p, opts.cwd));
  // An announced action ("I'll add the link to robots.txt") is a step still to take only when the agent made no call
  // from then on; one it went on to carry out is not.
  const lastCall = withAfter.reduce((n, t, i) => (t.role === "assistant" && t.tool_calls.length > 0 ? i : n), -1);
  const next = nextSteps(withAfter, end).filter((f) => {
    const item = f.text.replace(/ \((pending|in_progress)\)$/, "");
    const acted = (index.get(f.turn) ?? 0) <= lastCall;
    return !doneLater.has(signature(item)) && !byEvents(item, f.turn) && !(acted && onlyAnnounces(item));
  });
  next.push(...ended.next);
  const unanswered = unansweredRequest(withAfter, st, (t) => {
    // A short reply ("Yes, to stderr.") answers; markup alone or an interruption does not.
    const said = t.role === "assistant" && conversational(t) ? tidyState(spoken(t.text).trim()) : undefined;
    return !!said && /\p{L}{2}/u.test(said) && !onlyAnnounces(said);
  });
  if (unanswered) next.unshift(unanswered);
  const stopped = stoppedMidWork(withAfter, st) ?? (unanswered ? undefined : unansweredLast(withAfter, st, replies));
  if (stopped) next.unshift(stopped);
  if (st.uncommitted.length > 0) {
    const names = st.uncommitted.map((u) => `\`${displayPath(u.path, opts.cwd)}\``);
    const last = st.uncommitted[st.uncommitted.length - 1]!.turn;
    next.push({
      text: `commit or discard the uncommitted edits to ${names.slice(0, 6).join(", ")}${names.length > 6 ? ` and ${names.length - 6} more` : ""}`,
      turn: last,
    });
  }
  const spanIds = new Set(turns.map((t) => t.id));
  const done = completed(turns).filter(
    (d) => !/^(?:verified|reported): /.test(d.text) || !disproved(d.text, index.get(d.turn) ?? 0, st),
  );
  const seen = new Set(done.map((d) => signature(d.text)));
  // Commits and plan items the kept turns show done: where the work stands, not only where the span ended.
  for (const d of [...completed(opts.after ?? []), ...planOf(withAfter).done])
    if (!spanIds.has(d.turn) && !seen.has(signature(d.text))) {
      seen.add(signature(d.text));
      done.push(d);
    }
  const state: Fact[] = [];
  if (st.lastRequest)
    state.push({ text: `latest request: "${wholeSentences(st.lastRequest.text, 400)}"`, turn: st.lastRequest.turn });
  for (const f of currentState(withAfter)) {
    const item = f.text.startsWith("in progress: ") ? f.text.slice(13) : undefined;
    if (item !== undefined && (doneLater.has(signature(item)) || byEvents(item, f.turn))) continue;
    // A plan item marked in progress before the latest request is not where the last phase stands.
    if (item !== undefined && (index.get(f.turn) ?? 0) < end) continue;
    const text = tidyState(f.text);
    // The agent's claim of success that a later failing run or the person's word disproved is not where things stand.
    if (text && !onlyAnnounces(text) && !disproved(text, index.get(f.turn) ?? 0, st)) state.push({ ...f, text });
  }
  state.push(...ended.state);
  for (const [path, r] of st.reverted)
    state.push({ text: `\`${displayPath(path, opts.cwd)}\` is back to its committed state (${r.how})`, turn: r.turn });
  const title = opts.title && !DATE_TITLE.test(opts.title.trim()) ? opts.title : undefined;
  return {
    intent: intents(turns, title),
    files,
    decisions: decisions(turns),
    state,
    blockers: tidyOpen(blockers(withAfter, endFails, end)),
    next: tidyOpen(next),
    constraints: userConstraints(turns),
    completed: done,
    failures: fails,
    metrics: metrics(turns),
  };
}
