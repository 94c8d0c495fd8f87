// Where the session ends, read from its events: the last outcome of each command it ran to check the work, the last
// commit and whether it was pushed, the edits no run checked since, and runs that failed with only edits after them.
// These are the Current State and Next Steps lines that prose cannot be trusted to give: the agent's words say what it
// meant to do, the events say what happened.
import type { Fact, Turn } from "../../conversation/schema.js";
import { clipWords } from "../rendering/clip.js";
import { turnRef } from "../rendering/render.js";
import type { EventState, SessionEvent } from "./events.js";

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

const RESTATED = /^deleted|\((?:diff|git [^)]*)\)$/;
/** Files no run checks: notes, docs, images. */
const NOT_CHECKED = /\.(?:md|mdx|txt|rst|adoc|png|jpe?g|gif|svg|ico|pdf|csv|log)$/i;

/**
 * Edits of code (paths, last turn) at positions after `at`, in order of first edit. A deletion leaves nothing to
 * check, and a unified diff or a working-tree report restates changes (a submitted patch, `git status`) rather than
 * making one.
 */
function editsAfter(events: readonly SessionEvent[], at: number): { paths: string[]; turn: string } | undefined {
  const paths = new Set<string>();
  let turn = "";
  for (const e of events)
    if (e.type === "edit" && e.at > at && !NOT_CHECKED.test(e.path) && !RESTATED.test(e.op)) {
      paths.add(e.path);
      turn = e.turn;
    }
  return paths.size > 0 ? { paths: [...paths], turn } : undefined;
}

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
  if (latest && since) {
    const what = latest.run.ok ? "not rerun since" : `failed at ${turnRef(latest.run.turn)} and not rerun since`;
    next.push({
      text: `rerun ${quote(latest.part)}: ${what} the edits to ${names(since.paths, display)}`,
      turn: since.turn,
    });
  }
  const commits = events.filter((e): e is Extract<SessionEvent, { type: "commit" }> => e.type === "commit");
  const last = commits[commits.length - 1];
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
  if (!req || st.lastRequestAt < 0) return undefined;
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
