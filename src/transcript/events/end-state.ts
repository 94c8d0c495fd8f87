// Where the session ends, read from its events: the last outcome of each command it ran to check the work, the last
// commit and whether it was pushed, the edits no run checked since, and runs that failed with only edits after them.
// These are the Current State and Next Steps lines that prose cannot be trusted to give: the agent's words say what it
// meant to do, the events say what happened.
import type { Fact, Turn } from "../../conversation/schema.js";
import { clipWords } from "../rendering/clip.js";
import { turnRef } from "../rendering/render.js";
import { callsWithResults, type EventState, relatedRun, sameRun, type SessionEvent, typedText } from "./events.js";
import { commandText } from "./ledger.js";

type Run = Extract<SessionEvent, { type: "run" }>;

/** How many distinct checks the state names: the latest ones. */
const CHECKS_SHOWN = 3;
/** How many files a line names before counting the rest. */
const FILES_SHOWN = 4;
/** The longest request a line quotes. */
const REQUEST_CHARS = 300;
/** The longest command a line quotes. */
const COMMAND_CHARS = 70;

/**
 * A part of a command that checks the work: a test runner, a build, a linter or type checker, a package script, the
 * program run by its interpreter, a request to a running server. Installs, git, file handling and searches are not.
 */
const CHECK =
  /^(?:(?:npm|pnpm|yarn|bun)\s+(?:test|t|run\s+[\w:.-]+|build|lint|start|dev|exec\s+\S+)|npx\s+(?:tsc|eslint|vitest|jest|biome|prettier|playwright|mocha|ts-node|tsx|cypress|next\s+build|vite\s+build|astro|svelte-check|vue-tsc|turbo|nx|prisma\s+validate)\b|(?:pytest|vitest|jest|mocha|tox|nox|ruff|mypy|flake8|pylint|black|eslint|tsc|biome|prettier|cargo|go|make|gradle|mvn|dotnet|rspec|phpunit|ctest|cmake|swift|xcodebuild|deno|flutter)\b|\.\/gradlew\b|(?:python3?|py|node|ts-node|tsx|ruby|php|java|bash|sh|uv\s+run|poetry\s+run|pipenv\s+run)\s+(?:-m\s+)?(?!-)[\w./-]+|curl\b|docker(?:-|\s+)compose\s+(?:up|build|run)|docker\s+(?:build|run)\b|\.\/[\w./-]+)/;
/** Sub-commands of those tools that set up rather than check. */
const SETUP = /^(?:cargo|go|npm|pnpm|yarn|bun|dotnet)\s+(?:install|add|get|fetch|mod|new|init|i|ci|restore|clean)\b/;

/** The part of a run that checks the work, if any. */
export function checkOf(r: Run): string | undefined {
  return r.parts.find((p) => CHECK.test(p) && !SETUP.test(p));
}

/**
 * Whether a failed check is a selection (`npx vitest run test/a.test.ts`, `pytest -q -k parse`, `npm test -- -t rows`)
 * of a check among `passed` (`npx vitest run`, `pytest -q`, `npm test`): that command with more arguments that are
 * options or paths, not another target (`make deploy` is not `make`).
 */
function selects(part: string, passed: ReadonlySet<string>): boolean {
  for (let i = part.indexOf(" "); i > 0; i = part.indexOf(" ", i + 1)) {
    const first = part.slice(i).trim().split(/\s+/)[0] ?? "";
    if (passed.has(part.slice(0, i)) && (first.startsWith("-") || /[/\\]|\.\w+$/.test(first))) return true;
  }
  return false;
}

/**
 * The last run of each distinct check, latest first; a failed run of a selection is left out once the whole check
 * it selects from passed after it.
 */
function lastChecks(events: readonly SessionEvent[], limit: number): { part: string; run: Run }[] {
  const seen = new Map<string, Run>();
  for (const e of events) {
    if (e.type !== "run") continue;
    const part = checkOf(e);
    if (!part) continue;
    seen.delete(part);
    seen.set(part, e);
  }
  const out: { part: string; run: Run }[] = [];
  const passed = new Set<string>();
  for (const [part, run] of [...seen].reverse()) {
    if (out.length >= limit) break;
    if (run.ok) passed.add(part);
    if (run.ok || !selects(part, passed)) out.push({ part, run });
  }
  return out;
}

const quote = (s: string) => `\`${clipWords(s.replace(/`/g, "'"), COMMAND_CHARS)}\``;

/** A path as the page names it: shortened by `display`, a long absolute one by its last two parts. */
function shortPath(path: string, display: (p: string) => string): string {
  const p = display(path);
  const parts = p.split(/[/\\]/);
  return /^(?:\/|[A-Za-z]:)/.test(p) && parts.length > 4 ? `…/${parts.slice(-2).join("/")}` : p;
}

function names(paths: readonly string[], display: (p: string) => string): string {
  const shown = paths.slice(0, FILES_SHOWN).map((p) => `\`${shortPath(p, display)}\``);
  return `${shown.join(", ")}${paths.length > FILES_SHOWN ? ` and ${paths.length - FILES_SHOWN} more` : ""}`;
}

/**
 * Ops that leave no new code to check: a deletion, a copy or a move (the file's content is what it was), and a
 * unified diff or a working-tree report that restates changes.
 */
const RESTATED = /^(?:deleted|copied|moved)\b|\((?:diff|git [^)]*)\)$/;
/** Files no run checks: notes, docs, images. */
const NOT_CHECKED = /\.(?:md|mdx|txt|rst|adoc|png|jpe?g|gif|svg|ico|pdf|csv|log)$/i;

/**
 * Edits of code (paths, last turn and its position) at positions after `at`, in order of first edit. A deletion, a
 * copy or a move leaves nothing new to check, and a unified diff or a working-tree report restates changes (a
 * submitted patch, `git status`) rather than making one.
 */
function editsAfter(
  events: readonly SessionEvent[],
  at: number,
): { paths: string[]; turn: string; at: number } | undefined {
  const paths = new Set<string>();
  let turn = "";
  let last = at;
  for (const e of events)
    if (e.type === "edit" && e.at > at && !NOT_CHECKED.test(e.path) && !RESTATED.test(e.op)) {
      paths.add(e.path);
      turn = e.turn;
      last = e.at;
    }
  return paths.size > 0 ? { paths: [...paths], turn, at: last } : undefined;
}

type Unseen = Extract<SessionEvent, { type: "unseen" }>;

/**
 * The last call after position `at` that runs `part` again (alone or inside a compound command, `cd web && npm test`)
 * where the transcript does not show what it printed; with no `part`, the last such call of any check.
 */
function calledAgain(events: readonly SessionEvent[], at: number, part?: string): Unseen | undefined {
  let hit: Unseen | undefined;
  for (const e of events)
    if (e.type === "unseen" && e.at > at) {
      const runs = e.parts.some((p) =>
        part === undefined ? CHECK.test(p) && !SETUP.test(p) : p === part || sameRun(p, part),
      );
      if (runs) hit = e;
    }
  return hit;
}

/** A Current State line for a check called again without its output shown. */
const ranUnseen = (e: Unseen, part?: string): Fact => ({
  text: `${quote(part ?? e.parts.find((p) => CHECK.test(p)) ?? e.key)} ran (${turnRef(e.turn)}) after the edits; its outcome is not shown`,
  turn: e.turn,
});

/** A `git push` that sends something: not a dry run. */
const PUSH = /\bgit\s+push\b(?![^|;&\n]*\s(?:--dry-run|-n)\b)/;

export interface EndFacts {
  /** Current State lines: the checks' last outcomes, the last commit and its push. */
  state: Fact[];
  /** Next Steps lines: checks to rerun over edits made since, failed checks edited but not rerun. */
  next: Fact[];
}

/**
 * What the events say at the end: each recent check's last outcome (and whether edits came after it), the last
 * commit and whether a later push went through. `display` shortens a path for the page.
 */
export function endFacts(st: EventState, display: (path: string) => string = (p) => p): EndFacts {
  const { events } = st;
  const state: Fact[] = [];
  const next: Fact[] = [];
  const checks = lastChecks(events, CHECKS_SHOWN);
  if (checks.length > 0) {
    const said = checks
      .map(({ part, run }) => `${quote(part)} ${run.ok ? "passed" : "failed"} (${turnRef(run.turn)})`)
      .join("; ");
    state.push({ text: `last runs: ${said}`, turn: checks[0]!.run.turn });
  }
  // Edits after the latest check are not checked; a check that failed last is still to be made to pass.
  const latest = checks[0];
  const since = latest ? editsAfter(events, latest.run.at) : undefined;
  // A later call of the same check whose output the export leaves out ran it: no reason to ask for a rerun.
  const again = latest && since ? calledAgain(events, since.at, latest.part) : undefined;
  if (again) state.push(ranUnseen(again, latest!.part));
  else if (latest && since) {
    const what = latest.run.ok ? "not rerun since" : `failed at ${turnRef(latest.run.turn)} and not rerun since`;
    next.push({
      text: `rerun ${quote(latest.part)}: ${what} the edits to ${names(since.paths, display)}`,
      turn: since.turn,
    });
  }
  const commits = events.filter((e): e is Extract<SessionEvent, { type: "commit" }> => e.type === "commit");
  const last = commits[commits.length - 1];
  const unchecked = latest ? undefined : uncheckedEdits(st, last);
  const ranAfter = unchecked ? calledAgain(events, unchecked.at) : undefined;
  if (ranAfter) state.push(ranUnseen(ranAfter));
  else if (unchecked) next.push({ ...unchecked, text: `${unchecked.text} ${names(unchecked.paths, display)}` });
  if (last) {
    const push = events.find((e) => e.type === "run" && e.at >= last.at && e.ok && PUSH.test(e.key));
    const sha = last.sha ? ` \`${last.sha.slice(0, 7)}\`` : "";
    const msg = last.message ? ` "${clipWords(last.message, 120)}"` : "";
    state.push({
      text: `last commit${sha}${msg}${push ? `, pushed (${turnRef(push.turn)})` : ", not pushed in the session"}`,
      turn: last.turn,
    });
  }
  return { state, next };
}

/**
 * Code edited in the last phase when the session ran no check at all and nobody spoke after the edits: nothing
 * tested, built or ran the change, and no one reported on it (a client that does not record runs, aider's, leaves
 * that to the person's next message, which never came). With the commit that holds the edits when one came after.
 */
function uncheckedEdits(
  st: EventState,
  last: Extract<SessionEvent, { type: "commit" }> | undefined,
): { text: string; turn: string; paths: string[]; at: number } | undefined {
  const since = editsAfter(st.events, st.lastRequestAt);
  if (!since) return undefined;
  const at = Math.max(...st.events.filter((e) => e.type === "edit" && e.turn === since.turn).map((e) => e.at));
  if (st.events.some((e) => e.type === "request" && e.at > at)) return undefined;
  const sha = last && last.at >= at && last.sha ? ` (committed as \`${last.sha.slice(0, 7)}\`)` : "";
  return {
    text: `not checked${sha}: no test, build or run of the code after the edits to`,
    turn: since.turn,
    paths: since.paths,
    at,
  };
}

/** The longest part of the agent's last words a stopped-work line quotes. */
const STOPPED_CHARS = 200;
/** The longest part of the latest request a stopped-work line quotes. */
const STOPPED_REQUEST_CHARS = 160;

/** The closing words of a text: its last sentences within `max` characters. */
function closing(text: string, max: number): string {
  const parts = text
    .replace(/```[\s\S]*?(?:```|$)/g, " ")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((x) => x.replace(/\s+/g, " ").trim())
    .filter(Boolean);
  let out = "";
  for (let i = parts.length - 1; i >= 0; i--) {
    const next = out ? `${parts[i]} ${out}` : parts[i]!;
    if (next.length > max) break;
    out = next;
  }
  return out || clipWords(parts[parts.length - 1] ?? "", max);
}

/**
 * Words cut in the middle of a sentence: a last line of prose (not a list item, a table row or a heading) that ends
 * on a mark that joins it to words still to come (`, `, `;`, `(`, a dash). A line that ends on a word without a full
 * stop is no sign: finished answers often end so (`All tests pass and the build is green`).
 */
const CUT_OFF = /(?:^|\n)(?![ \t]*(?:[-*+|#>]|\d+[.)]))[^\n]*(?:[,;(，；、（]|\s[-–—])$/u;
/** A last sentence that turns to the person (`Let me know if …`, `I'll push it once you confirm.`) hands over. */
const TO_PERSON = /\blet me know\b|\byou(?:rs?)?\b/i;

/**
 * The session stopped in the middle of the work of the latest request: its last turn is the agent's, after that
 * request, and either its last call never returned or its words break off or only announce what comes next. The
 * work it was doing is still to do.
 */
export function stoppedMidWork(turns: readonly Turn[], st: EventState): Fact | undefined {
  const end = lastSpoken(turns);
  const t = turns[end];
  if (!t || t.role !== "assistant" || end <= st.lastRequestAt) return undefined;
  const said = t.text.trim();
  const calls = callsWithResults([t]);
  const lastCall = calls[calls.length - 1];
  if (lastCall && (handsOver(lastCall.call.name) || SERVES.test(commandText(lastCall.call.input)))) return undefined;
  // A call without a result says the session stopped only where the transcript records results at all.
  const recorded = callsWithResults(turns.slice(Math.max(0, st.lastRequestAt))).some((c) => c.result !== undefined);
  const unreturned = lastCall !== undefined && lastCall.result === undefined && recorded;
  const words = closing(said, STOPPED_CHARS);
  const last = lastSentence(words);
  // A colon opens what follows it: it breaks off only when nothing follows (a label over code is a finished answer).
  const brokeOff =
    words !== "" && (CUT_OFF.test(said) || /[:：]$/.test(said) || (onlyAnnounces(last) && !TO_PERSON.test(last)));
  if (!unreturned && !brokeOff) return undefined;
  const what = words ? `"${words}"` : quote(commandText(lastCall!.call.input) || lastCall!.call.name);
  const asked = st.lastRequest?.text
    .replace(/`{3,}\w*|^#{1,6}\s+/gm, " ")
    .replace(/\s+/g, " ")
    .trim();
  const req = asked ? ` on the latest request "${clipWords(asked, STOPPED_REQUEST_CHARS)}"` : "";
  const how = unreturned ? "its last call has no result" : "its last words announce work not shown done";
  return { text: `stopped mid-work${req}: ${what} (${how})`, turn: t.id };
}

/** Calls that hand the turn back on purpose: a submitted patch, a completion, a question to the person. */
const HANDS_OVER = /^(?:submit|completion|complete|finish|exit|ask|question|handoff|notify)$/;
/** Whether a tool's name has one of those words (`AskUserQuestion`, `attempt_completion`), not inside one (`Task`). */
const handsOver = (name: string): boolean =>
  name
    .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .some((w) => HANDS_OVER.test(w));

/** A command that keeps running until stopped (a dev server, a watcher): it returns nothing by design. */
const SERVES =
  /\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|start|serve|watch)\b|\bvite(?!\s+build)\b|\buvicorn\b|\bflask\s+run\b|\bhttp\.server\b|\bnext\s+(?:dev|start)\b|\brails\s+s(?:erver)?\b|\bmanage\.py\s+runserver\b|\bdocker(?:-|\s+)compose\s+up\b(?![^|;&\n]*\s-d\b)|--watch\b|\btail\s+-f\b/;

/** Position of the session's last turn of the person or the agent, past the client's own notes (meta turns). */
function lastSpoken(turns: readonly Turn[]): number {
  let end = turns.length - 1;
  while (end >= 0 && (turns[end]!.kind === "meta" || turns[end]!.role === "system" || turns[end]!.sidechain)) end--;
  return end;
}

const lastSentence = (text: string): string => text.split(/(?<=[.!?])\s+/).pop() ?? text;

/** An acknowledgement or thanks: a last message that asks for nothing. */
const ACK =
  /^(?:(?:ok(?:ay)?|thanks?|thank you|thx|great|perfect|cool|nice|good|awesome|lgtm|done|sure|yes|yep|yup|got it)\b[\s!.,]*)+(?:[\p{Extended_Pictographic}\s]*)$/iu;

/**
 * The person's last message when the session ends on it and it is not the latest request (a client command with
 * words, `/ac in a new feature branch`, or a message the request test passed over), unless it only thanks. `replies`
 * tells a reply (thanks, `that works`, an answer): one is open only when it answers the agent's question.
 */
export function unansweredLast(
  turns: readonly Turn[],
  st: EventState,
  replies: (text: string) => boolean = () => false,
): Fact | undefined {
  const end = lastSpoken(turns);
  const t = turns[end];
  if (!t || end <= st.lastRequestAt) return undefined;
  const text = typedText(t);
  if (!text || ACK.test(text) || (/^\/\w/.test(text) && text.split(/\s+/).length < 3)) return undefined;
  if (!/^\/\w/.test(text) && replies(text) && !askedBefore(turns, end)) return undefined;
  return { text: `not answered: the last message "${clipWords(text, REQUEST_CHARS)}"`, turn: t.id };
}

/** Whether the agent's last words before position `end` ask the person something. */
function askedBefore(turns: readonly Turn[], end: number): boolean {
  for (let i = end - 1; i >= 0; i--) {
    const t = turns[i]!;
    if (t.role !== "assistant" || t.sidechain || !t.text.trim()) continue;
    return /[?？]\s*$/.test(closing(t.text, STOPPED_CHARS));
  }
  return false;
}

/** An agent line that only announces its next step (`I will view lines 55-80 of X.md`, `Let me also check …`). */
const ANNOUNCES =
  /^(?:(?:great|perfect|good|ok(?:ay)?|excellent|now|first|next|then|also)[!,.]?\s+)*(?:let me|let's|i'll|i will|i'm going to|i am going to|now i'll|now let me)\b/i;

/** Whether a state or next-step line only announces what the agent is about to do, in one sentence. */
export function onlyAnnounces(text: string): boolean {
  const body = text.replace(/`[^`]*`/g, "x").trim();
  return ANNOUNCES.test(body) && !/[.!?]\s+\p{Lu}/u.test(body);
}

/**
 * The latest request when nothing answered it: no agent words after it that say more than what comes next, no tool
 * call, no edit, run or commit (the session stopped at an error, an interruption, a spent quota). `says` tells
 * whether a turn is the agent saying something.
 */
export function unansweredRequest(
  turns: readonly Turn[],
  st: EventState,
  says: (t: Turn) => boolean,
): Fact | undefined {
  const req = st.lastRequest;
  if (!req || st.lastRequestAt < 0 || ACK.test(req.text.trim())) return undefined;
  const after = turns.slice(st.lastRequestAt + 1);
  if (after.some((t) => says(t) || (t.role === "assistant" && t.tool_calls.length > 0))) return undefined;
  if (st.events.some((e) => e.at > st.lastRequestAt && e.type !== "request")) return undefined;
  return { text: `not answered: the latest request "${clipWords(req.text, REQUEST_CHARS)}"`, turn: req.turn };
}

/**
 * Markup a client leaves in an agent's words: `</pre>`, `<execute_command>`, `<command>`; not a type argument written
 * against its type (`Promise<Config>`, `Vec<u8>`).
 */
const TAG = /(?<![\w$.])<\/?[a-z_][\w-]*>/i;
const TAGS = new RegExp(TAG.source, "gi");
/** The text with inline code spans (`` `Promise<Config>` ``) left out, where markup is not the client's. */
const prose = (text: string): string => text.replace(/`[^`]*`/g, " ");
/** The text with client markup outside inline code replaced by spaces. */
const unmarked = (text: string): string =>
  text
    .split(/(`[^`]*`)/)
    .map((s, i) => (i % 2 === 1 ? s : s.replace(TAGS, " ")))
    .join("");
/** The least an agent's line must keep, markup and repeats gone, to say anything. */
const MIN_STATE_CHARS = 30;

/**
 * An agent's state line without client markup and without a word repeated in a row (an aider reply opens with the
 * file name of every edit block: `Controllers\A.cs Controllers\A.cs …`); undefined when, markup taken out, little is
 * left: the line was a tool call the client wrote as text.
 */
export function tidyState(text: string): string | undefined {
  const words = unmarked(text).split(/\s+/).filter(Boolean);
  const kept = words.filter((w, i) => w !== words[i - 1]);
  const out = kept
    .join(" ")
    .replace(/\[Response interrupted by user\]/g, "")
    .trim();
  // Only a line that held markup can turn out to be nothing but markup; a short line of words stays.
  const marked = TAG.test(prose(text)) || text.includes("[Response interrupted by user]");
  return !marked || out.replace(/[^\p{L}\s]/gu, "").trim().length >= MIN_STATE_CHARS ? out : undefined;
}

/**
 * A question cut inside inline code (a `??` operator read as the end of a question): it ends at a question mark with
 * an odd count of backquotes, a quote in the style of shells and GNU tools (`` `fi' ``) not counted.
 */
const cutInCode = (text: string): boolean =>
  text.trimEnd().endsWith("?") && (text.replace(/`[^`'\n]*'/g, "").match(/`/g) ?? []).length % 2 === 1;
/** A line as compared for repeats: lower case, without end punctuation and the turn. */
const gist = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[?.!:\s]+$/, "")
    .trim();

/**
 * Open items as the page shows them: one line per item (a question asked twice in other words, one the start of
 * the other, is one) and none cut inside inline code.
 */
export function tidyOpen(facts: readonly Fact[]): Fact[] {
  const kept = facts.filter((f) => !cutInCode(f.text));
  const gists = kept.map((f) => gist(f.text));
  // In sorted order, a line another line starts with is followed by one such line: one pass over the sorted lines.
  const sorted = [...new Set(gists)].sort();
  const restated = new Set(sorted.filter((g, i) => sorted[i + 1]?.startsWith(g)));
  const seen = new Set<string>();
  return kept.filter((_, i) => {
    const g = gists[i]!;
    if (restated.has(g) || seen.has(g)) return false;
    seen.add(g);
    return true;
  });
}

/** Verbs of work finished, as a report writes them (`Added …`, `I've documented …`). */
const DONE_VERBS =
  "added|updated|created|wrote|written|documented|listed|outlined|included|saved|moved|fixed|implemented|completed|finished|noted|recorded|summari[sz]ed|committed|pushed|appended|described|drafted|renamed|removed|deleted|refactored|replaced|wired|configured";
/**
 * A line that reports work done, whatever it mentions (`I've added a "Next steps" section to the README`, `Updated
 * TODO.md with the follow-ups`, `✅ remaining tests fixed`): a completed action, not a step still to take.
 */
const REPORTS_DONE = new RegExp(
  `^(?:[-*•]\\s*)?(?:(?:i|we)(?:'ve|’ve| have)\\s+(?:now\\s+|also\\s+|just\\s+)?(?:${DONE_VERBS})\\b|(?:${DONE_VERBS})\\s+(?!to\\b|by\\b)\\S)|✅|\\[x\\]|\\bnow (?:includes|lists|has|contains|documents|describes)\\b`,
  "i",
);

/**
 * Words that keep a line open when it opens on a participle naming a thing, not on what someone did (`Deleted users
 * still need to be purged`, `Renamed columns need a migration`).
 */
const STILL_OPEN = /\b(?:still|needs?|should|must)\b/i;
const SOMEONE_DID = /^(?:[-*•]\s*)?(?:i|we)(?:'ve|’ve| have)\s/i;

/** Whether an open-work line only reports work already done. */
export const reportsDone = (text: string): boolean => {
  const line = text.replace(/\*\*/g, "").trim();
  return REPORTS_DONE.test(line) && (SOMEONE_DID.test(line) || !STILL_OPEN.test(line));
};

/** The agent claiming the work is done or green: `Fixed.`, `All tests pass`, `the build succeeds`, `works now`. */
const CLAIM =
  /\b(?:fixed|resolved|all (?:\d+ )?tests? (?:now )?pass(?:es|ed|ing)?|tests? (?:now )?pass(?:es|ed)?|(?:build|compil\w*|lint\w*|type-?check\w*) (?:now )?(?:succeeds|passes|is clean|is green)|(?:works|working) (?:now|correctly|again)|is (?:now )?working|no (?:more )?errors|\d+ (?:tests? )?passed)\b/i;
/** The person saying the problem is still there: `still fails`, `same error`. */
const STILL_BROKEN =
  /\bstill (?:\w+ ){0,2}?(?:fail\w*|broken|errors?|crash\w*|blank|empty|wrong|skip\w*|miss\w*|shows?|showing|gets?|getting|gives?|happen\w*|not\b|does ?n[o'’]t|is ?n[o'’]t|the same)|\bsame (?:error|issue|problem)\b/i;
/** The person saying it does not work: `it doesn't work`, `the page does not load`. */
const NOT_WORKING = /\b(?:does ?n[o'’]t|did ?n[o'’]t|is ?n[o'’]t|not) (?:work|working|fixed|load|show)\w*\b/i;
/** A sentence asking for behaviour (`make it not show …`, `it should not load …`): a wish, not a report. */
const ASKS =
  /^(?:please )?(?:do not|don'?t) |\b(?:make|ensure|sure|should|must|shall|please|can you|could you|would you|want|wants|need|needs|so that|so it|let's|add|change) /i;

/** Whether the person's words report the problem still there, not ask that something not show or load. */
const saysStillBroken = (text: string): boolean =>
  text.split(/(?<=[.!?])\s+|\n+/).some((x) => STILL_BROKEN.test(x) || (NOT_WORKING.test(x) && !ASKS.test(x.trim())));

/** A claim about tests, and a check that runs tests. */
const TESTS_CLAIM = /\btests?\b|\d+ passed\b/i;
const TEST_RUN = /\b(?:test|tests|pytest|jest|vitest|mocha|rspec|phpunit|tox|ctest|spec)\b/;
/** A claim about the build, lint or types, and a check that runs one of them. */
const BUILD_CLAIM = /\b(?:build|compil\w*|lint\w*|type-?check\w*)\b/i;
const BUILD_RUN = /\b(?:build|tsc|lint|eslint|biome|ruff|mypy|flake8|pylint|typecheck|type-check|check|compile)\b/;

/** The words of a command that name its tool: `npx vitest run`, `python -m pytest`. */
const TOOL_WORDS = 3;
/** Whether a failing check bears on a claim: a tests claim on a test run, a build claim on a build or lint. */
function speaksOf(claim: string, part: string): boolean {
  // The tool is named by the command's first words, not by its paths (`biome check tests/s5` is a lint).
  const tool = part.split(" ").slice(0, TOOL_WORDS).join(" ");
  if (TESTS_CLAIM.test(claim)) return TEST_RUN.test(tool);
  if (BUILD_CLAIM.test(claim)) return BUILD_RUN.test(tool);
  return true;
}

/**
 * What later events say against an agent's claim of success made at position `at`: a later run of a check that
 * failed, or the person saying later that it still fails. Undefined when nothing later disproves it or the line makes
 * no such claim.
 */
export function disproved(text: string, at: number, st: EventState): string | undefined {
  if (!CLAIM.test(text)) return undefined;
  const runs = st.events.filter((e): e is Run => e.type === "run");
  // A failure a later clean run of the same check settled again does not disprove the claim for good.
  const settled = (r: Run, part: string) =>
    runs.some(
      (x) => x.at > r.at && x.ok && x.parts.some((p) => relatedRun(p, part, { later: x.command, failed: r.command })),
    );
  for (const e of st.events) {
    if (e.at <= at) continue;
    const part = e.type === "run" && !e.ok ? checkOf(e) : undefined;
    // Only a check the claim could speak of: one that had run by then (a first lint run says nothing of the tests).
    const before =
      part !== undefined &&
      speaksOf(text, part) &&
      runs.some(
        (x) => x.at <= at && x.parts.some((p) => relatedRun(part, p, { later: (e as Run).command, failed: x.command })),
      );
    if (part && before && !settled(e as Run, part)) return `${quote(part)} failed at ${turnRef(e.turn)}`;
    if (e.type === "request" && saysStillBroken(e.text)) return `the person said at ${turnRef(e.turn)} it still fails`;
  }
  return undefined;
}
