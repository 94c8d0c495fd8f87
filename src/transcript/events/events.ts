// The session as a stream of events read from its tool calls and results, not from prose: the person's requests,
// file edits and their reverts (aider `/undo`, `git restore`, `git checkout --`, `git revert`, `git reset --hard`),
// commits, and command runs with their outcome. State is computed from the events: which errors a later run
// settled, which files end reverted or uncommitted, where the last phase of the work (after the last request)
// begins. Shared by the anchored summary and by whatever builds memory from a session.
import type { Failure, ToolCall, ToolResult, Turn } from "../../conversation/schema.js";
import { humanPart } from "../extraction/human.js";
import { resultFailed } from "./failures.js";
import { commandText, fileEvents } from "./ledger.js";
import { commands } from "./shell.js";

export type SessionEvent =
  | { type: "request"; turn: string; at: number; text: string }
  | { type: "edit"; turn: string; at: number; path: string; op: string }
  | { type: "revert"; turn: string; at: number; path: string; how: string }
  | { type: "commit"; turn: string; at: number; sha?: string; message: string; files: string[] }
  | { type: "run"; turn: string; at: number; command: string; key: string; parts: string[]; ok: boolean }
  /** A command the transcript shows called but not what it printed (an export that drops output): it ran, outcome unknown. */
  | { type: "unseen"; turn: string; at: number; command: string; key: string; parts: string[] }
  /** A call on one file the tool refused (`File has not been read yet`, `old_string not found`), with what it said. */
  | { type: "refused"; turn: string; at: number; path: string; said: string };

/**
 * Each tool call with the result that answers it and the position of the turn holding that result: by id, else by
 * position in the call's own turn, or in the next turn when that one calls nothing.
 */
export function callsWithResults(
  turns: readonly Turn[],
): { at: number; call: ToolCall; result?: ToolResult; resultAt: number }[] {
  const out: { at: number; call: ToolCall; result?: ToolResult; resultAt: number }[] = [];
  const byId = new Map<string, { r: ToolResult; at: number }>();
  turns.forEach((t, at) => {
    for (const r of t.tool_results) if (r.call_id) byId.set(r.call_id, { r, at });
  });
  turns.forEach((t, at) => {
    const next = turns[at + 1];
    const own = t.tool_results.length > 0;
    const loose = own
      ? t.tool_results
      : next && next.tool_calls.length === 0
        ? next.tool_results.filter((r) => !r.call_id)
        : [];
    const looseAt = own ? at : at + 1;
    t.tool_calls.forEach((call, k) => {
      const linked = call.id ? byId.get(call.id) : undefined;
      const result =
        linked?.r ?? (call.id ? undefined : (loose[k] ?? (t.tool_calls.length === 1 ? loose[0] : undefined)));
      const resultAt = linked ? linked.at : result ? looseAt : at;
      out.push({ at, call, ...(result ? { result } : {}), resultAt });
    });
  });
  return out;
}

/** One part of a command as the thing it runs: without environment assignments, redirections and repeated space. */
function partKey(part: string): string {
  return part
    .replace(/^(?:\w+=\S*\s+)+/, "")
    .replace(/\s*\d?>&\d|\s*\d?>\s*\/dev\/null/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Parts that only set the stage or plumb output: `cd`, `export`, `tail`, `grep`, `echo`, `true`. */
const PLUMBING =
  /^(?:cd|export|set|source|\.|tail|head|grep|rg|cat|less|tee|echo|printf|true|false|sleep|clear|wc|sort|uniq)\b/;

/**
 * The parts of a command that run something, for telling reruns apart: `cd x && npm install | tail -5 && npm test`
 * runs `npm install` and `npm test`.
 */
export function runParts(command: string): string[] {
  const script = withoutHeredocs(command)
    .split("\n")
    .filter((l) => l.trim() && !l.trim().startsWith("#"))
    .join("\n");
  return script
    .split(/\s*(?:&&|\|\||;|\||\n)\s*/)
    .map(partKey)
    .filter((p) => p && !PLUMBING.test(p));
}

/** A script without its heredoc bodies: the lines a `<<EOF` feeds are content written somewhere, not commands. */
function withoutHeredocs(script: string): string {
  const out: string[] = [];
  let delims: string[] = [];
  for (const line of script.split("\n")) {
    if (delims.length > 0) {
      if (line.trim() === delims[0]) delims = delims.slice(1);
      continue;
    }
    out.push(line);
    delims = [...line.matchAll(/(?<!<)<<(?!<)-?\s*(?:'([^']+)'|"([^"]+)"|\\?([\w.-]+))/g)].map(
      (m) => m[1] ?? m[2] ?? m[3]!,
    );
  }
  return out.join("\n");
}

/** Whether a command part names a file as a word of its own (`python src/app.py`, not `python myapp.py`). */
function namesFile(part: string, file: string): boolean {
  const f = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[\\s/'"=:])${f}(?=$|[\\s'":,;)])`).test(part);
}

/** A command as the thing it runs: its running parts, joined. */
export function runKey(command: string): string {
  return runParts(command).join(" && ");
}

/**
 * Whether a later part runs what a failed part ran: equal, or (three words or more each) half their words shared with
 * no argument the failed part lacks, so other flags or a wider run (`pytest` after `pytest tests/a.py`) count and
 * another script or file (`npm run lint` after `npm run build`) does not.
 */
export function sameRun(later: string, failed: string): boolean {
  if (later === failed) return true;
  const x = new Set(later.split(" "));
  const y = new Set(failed.split(" "));
  if (x.size < 3 || y.size < 3) return false;
  if ([...x].some((w) => !w.startsWith("-") && !y.has(w))) return false;
  const shared = [...x].filter((w) => y.has(w)).length;
  return shared / new Set([...x, ...y]).size >= 0.5;
}

/** Tools whose first word after them names what they run (a script, a target, a sub-command), not a path. */
const SUBCOMMANDS = new Set(
  "make npm pnpm yarn bun npx cargo go dotnet gradle gradlew ./gradlew mvn docker docker-compose git uv poetry pipenv deno flutter swift".split(
    " ",
  ),
);
/** Words that pass on to the next word as what is run: `npm run build`, `python -m pytest`, `uv run pytest`. */
const RUNNERS = new Set(["run", "exec", "-m", "x"]);

/** Flags that make a call report on the tool or on what it would run instead of running it. */
const QUERY_FLAG = /^(?:--version|--help|--collect-only|--co|--dry-run|--list|--list-tests)$/;

/** The folders a command moves into (`cd web && npm test`), as written. */
const folders = (command: string): string[] =>
  [...command.matchAll(/(?:^|[;&|\n(]\s*)(?:cd|pushd)\s+("[^"]*"|'[^']*'|[^\s;&|)]+)/g)].map((m) =>
    m[1]!.replace(/^["']|["']$/g, ""),
  );

/** A command part as what it runs (`npm run build`, `python -m pytest`, `node`) and the targets it names. */
function headAndTargets(part: string): { head: string; targets: string[] } {
  const w = part.split(" ");
  let n = 1;
  if (SUBCOMMANDS.has(w[0]!) && w[1] && !w[1].startsWith("-")) n = 2;
  if (/^python\d?(?:\.\d+)?$|^py$/.test(w[0]!) && w[1] === "-m" && w[2]) n = 3;
  while (n < w.length && RUNNERS.has(w[n - 1]!) && w[n] && !w[n]!.startsWith("-")) n++;
  return { head: w.slice(0, n).join(" "), targets: w.slice(n).filter((x) => x && !x.startsWith("-")) };
}

/**
 * Whether a later part checks what a failed part checked: `sameRun`, or the same tool or script with other flags
 * naming no target the failed part lacks — a wider run (`pytest` after `pytest tests/a.py -x`), the test file of a
 * failed test id (`pytest tests/a.py` after `pytest tests/a.py::test_rows`), the same script with other options
 * (`python sync.py --all` after `python sync.py --dry-run`). Another script, target or file is not.
 */
export function relatedRun(later: string, failed: string, where?: { later: string; failed: string }): boolean {
  // A call that asks the tool about itself or lists what it would do (`pytest --version`, `--collect-only`, a dry
  // run the failed part was not) runs none of the checks.
  const queries = (p: string) => p.split(" ").filter((w) => QUERY_FLAG.test(w));
  const asked = queries(failed);
  if (queries(later).some((w) => !asked.includes(w))) return false;
  if (sameRun(later, failed)) return true;
  // A wider run is of the folder it ran in: one that moved into a folder the failed command did not is elsewhere.
  if (where && folders(where.later).some((d) => !folders(where.failed).includes(d))) return false;
  const x = headAndTargets(later);
  const y = headAndTargets(failed);
  if (x.head !== y.head) return false;
  const named = new Set(y.targets.flatMap((t) => [t, t.split("::")[0]!]));
  return x.targets.every((t) => named.has(t));
}

const NOT_A_RUN = /^(?:cat|sed|head|tail|less|ls|find|grep|rg|echo|pwd|which|wc|git (?:status|diff|log|show|add))\b/;

/** What the person typed in a turn, without injected blocks; empty when the turn is not theirs. */
export function typedText(t: Turn): string {
  if (t.role !== "user" || t.kind !== "message" || t.sidechain) return "";
  return humanPart(t.text).text.trim();
}

const SHA = /\b[0-9a-f]{7,40}\b/;
const SHA_LINE = /^\[[\w./-]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$/m;
const AIDER_REMOVED = /^Removed: ([0-9a-f]{7,40}) (.+)$/m;

/** A revert a shell command runs: the command as written, the files it restores, how; `*` for every uncommitted change. */
export interface ShellRevert {
  command: string;
  paths: string[];
  how: string;
  sha?: string;
}

/**
 * The reverts a shell command runs, read from its simple commands (so a mention in an `echo`, a `grep` pattern or a
 * heredoc body is none): `git restore` (not `--staged`), `git checkout --`, `git reset --hard`, `git revert <sha>`.
 */
export function shellReverts(cmd: string): ShellRevert[] {
  const out: ShellRevert[] = [];
  for (const c of commands(cmd)) {
    const w = c.words;
    if (w[0] !== "git") continue;
    const command = w.join(" ");
    const args = w.slice(2).filter((a) => !a.startsWith("-"));
    if (w[1] === "restore" && !w.includes("--staged") && !w.includes("-S"))
      out.push({ command, paths: args.filter((a) => a !== "."), how: "git restore" });
    else if (w[1] === "checkout" && w.includes("--")) {
      const after = w.slice(w.indexOf("--") + 1);
      out.push({ command, paths: after.filter((a) => a !== "."), how: "git checkout --" });
    } else if (w[1] === "reset" && w.includes("--hard")) out.push({ command, paths: ["*"], how: "git reset --hard" });
    else if (w[1] === "revert" && args[0] && SHA.test(args[0]))
      out.push({ command, paths: [], how: "git revert", sha: args[0] });
  }
  return out.map((r) => (r.paths.length === 0 && !r.sha ? { ...r, paths: ["*"] } : r));
}

/** Whether a shell command runs `git commit` (`git -C dir commit` too), not only mentions it in an echo or a heredoc. */
export function runsGitCommit(cmd: string): boolean {
  return commands(cmd).some((c) => {
    const w = c.words;
    if (w[0] !== "git") return false;
    let i = 1;
    while (w[i] === "-C" || w[i] === "-c") i += 2;
    return w[i] === "commit";
  });
}

/** Whether a path a revert names covers an edited path (same file, or one ends with the other at a `/`). */
function samePath(a: string, b: string): boolean {
  const x = a.replace(/^\.\//, "").replace(/\\/g, "/");
  const y = b.replace(/^\.\//, "").replace(/\\/g, "/");
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`) || (y.endsWith("/") && x.startsWith(y));
}

/** The events of a span of turns, in order. */
export function sessionEvents(turns: readonly Turn[]): SessionEvent[] {
  const at = new Map(turns.map((t, i) => [t.id, i]));
  const out: SessionEvent[] = [];
  turns.forEach((t, i) => {
    const text = typedText(t);
    if (text && !/^\/\w/.test(text)) out.push({ type: "request", turn: t.id, at: i, text });
  });
  for (const e of fileEvents([...turns])) out.push({ type: "edit", at: at.get(e.turn) ?? 0, ...e });
  const shown = new Set<string>();
  for (const { call, result, resultAt } of callsWithResults(turns)) {
    // An event happens where its outcome is seen: the turn that holds the call's result.
    const i = resultAt;
    const t = turns[i]!;
    if (call.name === "git_commit") {
      out.push({
        type: "commit",
        turn: t.id,
        at: i,
        sha: String(call.input.sha ?? ""),
        message: String(call.input.message ?? ""),
        files: [],
      });
      continue;
    }
    const cmd = commandText(call.input);
    const target = fileOf(call);
    if (!cmd && target && result && resultFailed(result, call))
      out.push({
        type: "refused",
        turn: t.id,
        at: i,
        path: target,
        said: letters(result.output.slice(0, REFUSAL_CHARS)),
      });
    if (!cmd) continue;
    const key = runKey(cmd);
    const ran = result !== undefined;
    if (ran && runsGitCommit(cmd) && !resultFailed(result, call)) {
      const m = SHA_LINE.exec(result.output);
      if (m) shown.add(m[1]!);
      const msg = /-m\s+(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/.exec(cmd);
      out.push({
        type: "commit",
        turn: t.id,
        at: i,
        ...(m ? { sha: m[1]! } : {}),
        message: m?.[2] ?? msg?.[1] ?? msg?.[2] ?? "",
        files: [],
      });
    }
    for (const r of shellReverts(cmd)) {
      if (!result || resultFailed(result, call)) break;
      for (const p of r.paths) out.push({ type: "revert", turn: t.id, at: i, path: p, how: r.how });
      if (r.sha) out.push({ type: "revert", turn: t.id, at: i, path: `commit:${r.sha}`, how: r.how });
    }
    const parts = runParts(cmd).filter((p) => !NOT_A_RUN.test(p));
    if (ran && parts.length > 0)
      out.push({ type: "run", turn: t.id, at: i, command: cmd, key, parts, ok: !resultFailed(result, call) });
    else if (parts.length > 0) out.push({ type: "unseen", turn: t.id, at: i, command: cmd, key, parts });
  }
  // Clients that report commits and undos in their own lines (aider): `Commit 609f42e msg`, `Removed: 609f42e msg`.
  turns.forEach((t, i) => {
    for (const r of t.tool_results) {
      const removed = AIDER_REMOVED.exec(r.output);
      if (removed) out.push({ type: "revert", turn: t.id, at: i, path: `commit:${removed[1]}`, how: "/undo" });
      const sha = SHA_LINE.exec(r.output);
      if (sha && !shown.has(sha[1]!) && !out.some((e) => e.type === "commit" && e.sha === sha[1])) {
        shown.add(sha[1]!);
        out.push({ type: "commit", turn: t.id, at: i, sha: sha[1]!, message: sha[2]!, files: [] });
      }
    }
  });
  out.sort((a, b) => a.at - b.at || order(a) - order(b));
  // A commit holds the files edited since the previous one.
  let since: string[] = [];
  for (const e of out) {
    if (e.type === "edit" && !since.includes(e.path)) since.push(e.path);
    if (e.type === "commit") {
      e.files = since;
      since = [];
    }
  }
  // A revert of a commit (aider's /undo, git revert) reverts that commit's files.
  const bySha = new Map<string, string[]>();
  for (const e of out) if (e.type === "commit" && e.sha) bySha.set(e.sha.slice(0, 7), e.files);
  return out.flatMap((e) => {
    if (e.type !== "revert" || !e.path.startsWith("commit:")) return [e];
    const files = bySha.get(e.path.slice(7, 14)) ?? [];
    return files.map((path) => ({ ...e, path }));
  });
}

/** How much of a refusal is kept to tell which error it was. */
const REFUSAL_CHARS = 2000;
/** Text as its words in lower case, for telling whether an error line came from a given output. */
const letters = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

const ORDER: Record<SessionEvent["type"], number> = {
  request: 0,
  refused: 1,
  edit: 1,
  run: 2,
  unseen: 2,
  commit: 3,
  revert: 4,
};

/** The one file a tool call works on, by the input keys the clients use; undefined for a command or a search. */
function fileOf(call: ToolCall): string | undefined {
  const v = call.input.file_path ?? call.input.path ?? call.input.target_file ?? call.input.filePath;
  return typeof v === "string" && /[\w-]\.[\w]{1,8}$/.test(v) ? v : undefined;
}
const order = (e: SessionEvent) => ORDER[e.type];

/** What the events say at the end of the span. */
export interface EventState {
  events: SessionEvent[];
  /** Files whose last event is a revert: the edit is undone. */
  reverted: Map<string, { turn: string; how: string }>;
  /** Files edited after the last commit and not reverted (only when the session committed at all). */
  uncommitted: { path: string; turn: string }[];
  /** Position of the last request (the last phase starts there); -1 without one. */
  lastRequestAt: number;
  lastRequest?: { turn: string; text: string };
}

/**
 * The state the events leave: reverted files, uncommitted edits, the last request. `isRequest` says which typed
 * turns are real requests (not thanks, not an answer); by default every typed turn is.
 */
export function eventState(events: SessionEvent[], isRequest: (text: string) => boolean = () => true): EventState {
  const reverted = new Map<string, { turn: string; how: string }>();
  const edits = new Map<string, string>();
  let committed = false;
  let pending = new Map<string, string>();
  let lastRequestAt = -1;
  let lastRequest: EventState["lastRequest"];
  for (const e of events) {
    if (e.type === "edit") {
      reverted.delete(e.path);
      edits.set(e.path, e.turn);
      pending.set(e.path, e.turn);
    } else if (e.type === "revert") {
      const hit = [...edits.keys()].filter((p) => (e.path === "*" ? pending.has(p) : samePath(p, e.path)));
      for (const p of hit) {
        reverted.set(p, { turn: e.turn, how: e.how });
        pending.delete(p);
      }
    } else if (e.type === "commit") {
      committed = true;
      pending = new Map();
    } else if (e.type === "request" && isRequest(e.text)) {
      lastRequestAt = e.at;
      lastRequest = { turn: e.turn, text: e.text };
    }
  }
  // Without a turn that asks for work, the last typed turn opens the last phase.
  if (!lastRequest) {
    const typed = events.filter((e): e is Extract<SessionEvent, { type: "request" }> => e.type === "request").pop();
    if (typed) {
      lastRequestAt = typed.at;
      lastRequest = { turn: typed.turn, text: typed.text };
    }
  }
  return {
    events,
    reverted,
    uncommitted: committed ? [...pending].map(([path, turn]) => ({ path, turn })) : [],
    lastRequestAt,
    ...(lastRequest ? { lastRequest } : {}),
  };
}

/** Parts that prepare rather than check: a failed install is settled by its own rerun, not by a passing test. */
const SETUP =
  /^(?:npm|pnpm|yarn|pip|pip3|uv|poetry|bundle|cargo|go|brew|apt|apt-get)\s+(?:i|install|add|ci|sync|get|fetch)\b|^chmod\b|^mkdir\b/;

/**
 * The turn where a later event settled a failure: the last later run of a part that failed at the failure's last
 * turn (the same command, or a related one: `relatedRun`) ran clean; or a later clean run names a file the failure
 * names. Undefined while it stays open.
 */
export function resolvedBy(
  f: Pick<Failure, "text" | "last_turn">,
  events: readonly SessionEvent[],
): string | undefined {
  const runs = events.filter((e): e is Extract<SessionEvent, { type: "run" }> => e.type === "run");
  const at = events.find((e) => e.turn === f.last_turn)?.at;
  if (at === undefined) return undefined;
  const later = runs.filter((r) => r.at > at);
  const failedHere = runs.filter((r) => r.turn === f.last_turn && !r.ok);
  for (const r of failedHere) {
    const checks = r.parts.filter((p) => !SETUP.test(p));
    for (const part of checks.length > 0 ? checks : r.parts) {
      const same = later.filter((x) =>
        x.parts.some((p) => relatedRun(p, part, { later: x.command, failed: r.command })),
      );
      const last = same[same.length - 1];
      if (last?.ok) return last.turn;
    }
  }
  // A call the tool refused on a file is settled by a later edit of that file going through; not another error seen
  // in the same turn (a test run beside it).
  const said = letters(f.text);
  for (const r of events)
    if (r.type === "refused" && r.turn === f.last_turn && said.length > 0 && r.said.includes(said)) {
      const edit = events.find((e) => e.type === "edit" && e.at > r.at && samePath(e.path, r.path));
      if (edit) return edit.turn;
    }
  const files = (f.text.match(/[\w.-]+\.[a-z]{1,5}\b/gi) ?? []).filter((x) => !/^\d/.test(x) && !/^\.+$/.test(x));
  for (const file of files) {
    const naming = later.filter((x) => x.parts.some((p) => namesFile(p, file)));
    const last = naming[naming.length - 1];
    if (last?.ok) return last.turn;
  }
  return undefined;
}

/**
 * Failures with what later events say of them: `resolved` by the turn a later run of the same command, test or file
 * went clean; else `open` when hit (position by turn id in `at`) at or after `from` (the last phase) with no edit since (an edit after
 * it is an attempt at a fix).
 */
export function settleFailures(
  fails: readonly Failure[],
  events: readonly SessionEvent[],
  from: number,
  at: ReadonlyMap<string, number>,
): Failure[] {
  const lastEdit = events.reduce((n, e) => (e.type === "edit" ? Math.max(n, e.at) : n), -1);
  return fails.map((f) => {
    const by = resolvedBy(f, events);
    if (by) return { ...f, resolved: by, open: false };
    const hit = at.get(f.last_turn) ?? -1;
    return { ...f, open: hit >= from && hit >= lastEdit };
  });
}

/** Actions a plan item can name, each with the event that shows it done. */
const ACTIONS: { names: RegExp; done: (e: SessionEvent) => boolean }[] = [
  { names: /\bcommit(?:s|ted|ting)?\b/i, done: (e) => e.type === "commit" },
  { names: /\bpush(?:es|ed|ing)?\b/i, done: (e) => e.type === "run" && e.ok && /\bgit push\b/.test(e.key) },
  {
    names: /\b(?:run|rerun|re-run)\b[^.]*\btests?\b|\btests? pass/i,
    done: (e) => e.type === "run" && e.ok && TEST_WORDS.test(e.key),
  },
  {
    names: /\b(?:run|rerun)\b[^.]*\b(?:lint|build|typecheck|type-check)\b/i,
    done: (e) => e.type === "run" && e.ok && /\b(?:lint|build|tsc|typecheck|eslint|biome|ruff)\b/.test(e.key),
  },
];
const TEST_WORDS = /\b(?:test|tests|pytest|jest|vitest|mocha|rspec|phpunit|tox|ctest)\b/;

/**
 * Whether the events after position `from` carry out a plan item: every action it names (commit, push, run the
 * tests, run lint or the build) has its event later, and it names at least one.
 */
export function doneByEvents(item: string, from: number, events: readonly SessionEvent[]): boolean {
  const named = ACTIONS.filter((a) => a.names.test(item));
  if (named.length === 0) return false;
  return named.every((a) => events.some((e) => e.at > from && a.done(e)));
}
