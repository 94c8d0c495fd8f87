// Facts of a span of turns: intent, constraints, failures, decisions, completed work, metrics, state and next steps.
import type { Fact, Failure, Metric, Sections, Turn } from "../conversation/schema.js";
import { signature } from "../text/signature.js";
import { commandText, displayPath, fileEvents } from "./ledger.js";

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
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** Removes fenced code and quoted tool output: what is left is what a person or the agent said. */
export function prose(text: string): string {
  return text
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .replace(/<([a-z_-]+)>[\s\S]*?<\/\1>/gi, " ")
    .replace(/^\s*>.*$/gm, "");
}

const CONSTRAINT_CUES =
  /\b(don'?t|do not|never|always|must|should|shouldn'?t|need(s|ed)? to|instead|without|only|make sure|ensure|please|i want|i'?d like|i have|we have|keep|remove|revert|stop|use|not|no|prefer|rather|avoid|still|again|didn'?t|doesn'?t|isn'?t|wrong|fix|follow|let'?s|interrupted|can you|could you)\b/i;

/** User instructions and corrections, verbatim: the leading sentence plus every sentence carrying a cue. */
export function userConstraints(turns: Turn[]): Fact[] {
  const out: Fact[] = [];
  for (const t of turns) {
    if (t.role !== "user" || !conversational(t) || !t.text.trim()) continue;
    const p = prose(t.text).trim() || t.text.trim();
    const ss = sentences(p);
    if (ss.length === 0) continue;
    // Short messages are kept whole; long ones (pasted logs, specs) by their first and their cue-bearing sentences.
    const picked: string[] = p.length <= 320 ? ss : [ss[0]!];
    if (p.length > 320) for (const s of ss.slice(1)) if (CONSTRAINT_CUES.test(s) && s.length < 400) picked.push(s);
    let quote = "";
    for (const s of picked) {
      if (quote.length + s.length > 480) break;
      quote += (quote ? " " : "") + s;
    }
    out.push({ text: clip(quote || ss[0]!, 500), turn: t.id });
  }
  return out;
}

/** The session's intent: its first user request, and later requests that redirect it. */
export function intents(turns: Turn[], title: string | undefined): Fact[] {
  const users = turns.filter((t) => t.role === "user" && conversational(t) && prose(t.text).trim().length > 0);
  const out: Fact[] = [];
  if (title && users[0]) out.push({ text: clip(title, 160), turn: users[0].id });
  const first = users[0];
  if (first) out.push({ text: clip(prose(first.text), 300), turn: first.id });
  return out;
}

const ERROR_LINE =
  /(\b[A-Z]\w*(?:Error|Exception|Failed|Failure)\b|\bTraceback\b|\bUncaught\b|\bERR_[A-Z_]+\b|\berror\b|\bfailed\b|\bFAIL(?:ED)?\b|\bpanic(?:ked)?\b|\bfatal\b|not defined|does not exist|has no attribute|no attribute|No such|cannot|can't|Cannot|Could not|could not|is not|rejected|denied|refused|timed out|Missing|unsupported|not supported|not found|CORS|readonly|read-only|Invalid|invalid)/;
/** Lines of code (declarations, statements, comments) mention error words without being errors. */
const CODE_LINE =
  /^(\/\/|#(?!\s*\d)|\*|\?\?|(public|private|protected|internal|readonly|static|const|let|var|def|class|import|from|return|throw|if|else|catch|try|function|async|await)\b)|[;{]\s*$/;
/** Phrases that say what went wrong, found inside long log lines past the part kept. */
const INNER =
  /(No such host is known|Name or service not known|Connection refused|connection refused|Permission denied|permission denied|not found|timed out|unreachable|does not exist|is not defined)[^.;,"'{}]{0,60}/g;
const SPECIFIC =
  /(has no attribute|is not defined|does not exist|cannot (?:find|read|load|import)|not supported|readonly|read-only|timed out)/;
const NOISE = /^(\s*at |\s*File "|\s*\^|\s*~|\s*\d+\s*\||\s*-{3,}\s*$|\s*\.\.\.|\s*\[\d+\/\d+\])/;
const STRONG = /\b[A-Z]\w*(?:Error|Exception)\b|\bTraceback\b|\bUncaught\b|\bERR_[A-Z_]+\b|\bFAIL(?:ED)?\b|\bpanic/;

function category(line: string, role: Turn["role"]): Failure["category"] {
  if (role === "user") return "user-reported";
  if (/\b(test|assert|expect|FAIL|pytest|jest|vitest)\b/i.test(line)) return "test failure";
  if (/\b(build|compile|tsc|syntax|Turbopack|webpack|cargo|TS\d{4})\b/i.test(line)) return "build error";
  if (/tool_use_error|rejected|not been read/i.test(line)) return "tool error";
  return "runtime error";
}

interface ErrorHit {
  line: string;
  strong: boolean;
  role: Turn["role"];
}

function errorLines(text: string, role: Turn["role"], isError: boolean, max = 6): ErrorHit[] {
  const out: ErrorHit[] = [];
  // Strong lines (named exceptions) first, so a long paste still yields its exception.
  const all = text.split("\n");
  // One line per distinct exception first (a stack of nested causes names several), then the rest.
  const seenExc = new Set<string>();
  const firstOfKind: string[] = [];
  const repeats: string[] = [];
  for (const l of all) {
    const m = STRONG.exec(l);
    if (!m) continue;
    if (seenExc.has(m[0])) repeats.push(l);
    else {
      seenExc.add(m[0]);
      firstOfKind.push(l);
    }
  }
  const ordered = [...firstOfKind, ...repeats, ...all.filter((l) => !STRONG.test(l))];
  for (const raw of ordered) {
    if (out.length >= max) break;
    let line = raw.trim().replace(/^#{1,6}\s+/, "");
    if (line.length < 6 || line.length > 4000 || NOISE.test(raw)) continue;
    const hit = ERROR_LINE.exec(line);
    if (!hit) continue;
    const strong = STRONG.test(line) || isError;
    if (!strong && CODE_LINE.test(line)) continue;
    // Long log lines: keep the part around the error.
    const at = STRONG.exec(line)?.index ?? hit.index;
    if (line.length > 220) {
      // What a long log line says beyond the kept window is kept as its own short failures.
      for (const m of line.slice(Math.max(0, at - 40) + 220).matchAll(INNER)) {
        if (out.length < max) out.push({ line: m[0].trim(), strong, role });
      }
      if (at > 60) line = `…${line.slice(at - 40)}`;
    }
    // Prose mentions of "error" count only in user messages and failed tool results, or when specific.
    if (!strong && role === "assistant" && !SPECIFIC.test(line)) continue;
    out.push({ line: clip(line, 220), strong, role });
  }
  return out;
}

/** Failures seen in tool results, user reports and agent prose, merged by signature, with what fixed them. */
export function failures(turns: Turn[], cwd: string | undefined): Failure[] {
  const bySig = new Map<string, Failure & { strong: boolean; at: number }>();
  const edits = fileEvents(turns);
  const editAt = new Map<string, number>();
  turns.forEach((t, i) => editAt.set(t.id, i));
  const hits = (t: Turn, i: number, hs: ErrorHit[]): void => {
    for (const h of hs) {
      const sig = signature(h.line);
      if (sig.length < 5) continue;
      const f = bySig.get(sig);
      if (f) {
        f.count++;
        f.last_turn = t.id;
        f.at = i;
        f.strong ||= h.strong;
      } else {
        bySig.set(sig, {
          signature: sig,
          text: h.line,
          category: category(h.line, h.role),
          turn: t.id,
          last_turn: t.id,
          count: 1,
          strong: h.strong,
          at: i,
        });
      }
    }
  };
  turns.forEach((t, i) => {
    if (t.kind !== "message") return;
    if (t.role === "user" && !t.sidechain) hits(t, i, errorLines(t.text, "user", false));
    else if (t.role === "assistant") hits(t, i, errorLines(t.text, "assistant", false, 3));
    for (const r of t.tool_results) {
      const hs = errorLines(r.output, "tool", r.is_error, r.is_error ? 4 : 3);
      // A failed tool call is a failure even when its message has no error word ("File has not been read yet").
      const firstLine = r.output
        .split("\n")
        .find((l) => l.trim())
        ?.trim();
      if (r.is_error && firstLine && !hs.some((h) => h.line === clip(firstLine, 220)))
        hs.unshift({ line: clip(firstLine.replace(/<\/?tool_use_error>/g, ""), 220), strong: true, role: "tool" });
      hits(t, i, hs);
    }
  });
  const out: Failure[] = [];
  for (const f of bySig.values()) {
    const fix = edits.find((e) => (editAt.get(e.turn) ?? -1) > f.at);
    const { strong: _s, at: _a, ...rest } = f;
    out.push({
      ...rest,
      ...(fix ? { remediation: `then ${displayPath(fix.path, cwd)} was ${fix.op.split(":")[0]} (${fix.turn})` } : {}),
    });
  }
  return out;
}

/** Scores a failure for the budget: strong signals, repeats and user reports first. */
export function failureWeight(f: Failure): number {
  let w = Math.log2(1 + f.count);
  if (STRONG.test(f.text)) w += 2;
  if (f.category === "user-reported") w += 1.5;
  if (f.category === "test failure" || f.category === "build error") w += 0.5;
  return w;
}

const DECISION =
  /\b(I'?ll use|we'?ll use|I decided|decided to|decision|instead of|rather than|switch(?:ed|ing)? to|chose|choose|going with|the (?:root )?cause|the fix is|the issue is|the problem is|because|approach)\b/i;

/** Decisions with their rationale, from the agent's prose. */
export function decisions(turns: Turn[]): Fact[] {
  const out: Fact[] = [];
  const seen = new Set<string>();
  for (const t of turns) {
    if (t.role !== "assistant" || !conversational(t)) continue;
    for (const s of sentences(prose(t.text))) {
      if (s.length < 25 || s.length > 320 || !DECISION.test(s)) continue;
      const key = signature(s);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ text: clip(s, 260), turn: t.id });
    }
  }
  return out;
}

interface Todo {
  content: string;
  status: string;
}

function todosOf(t: Turn): Todo[] | undefined {
  for (const c of t.tool_calls) {
    const n = c.name.toLowerCase();
    if (n === "todowrite" && Array.isArray(c.input.todos)) {
      return (c.input.todos as Record<string, unknown>[]).map((x) => ({
        content: String(x.content ?? ""),
        status: String(x.status ?? "pending"),
      }));
    }
    if (n === "update_plan") {
      if (Array.isArray(c.input.plan)) {
        return (c.input.plan as Record<string, unknown>[]).map((x) => ({
          content: String(x.step ?? ""),
          status: String(x.status ?? "pending"),
        }));
      }
      const text = typeof c.input.text === "string" ? c.input.text : "";
      const items = [...text.matchAll(/^\s*-\s*\[(\w+)\]\s*(.+)$/gm)].map((m) => ({
        content: m[2]!.trim(),
        status: m[1]!,
      }));
      if (items.length > 0) return items;
    }
  }
  return undefined;
}

const COMMIT_MSG = /\bgit\s+commit\b[^\n]*?\s-m\s+(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/;
const SHA_LINE = /^\[[\w./-]+ ([0-9a-f]{7,40})\] (.+)$/m;
const PASSING =
  /(\b\d+ (?:passed|passing|tests? passed)\b[^\n]{0,60}|\bAll (?:tests )?(?:OK|passed|pass)\b[^\n]{0,40}|\bTests?:\s+\d+ passed[^\n]{0,40}|\bOK \(\d+ tests?\)|\bBuild succeeded\b|\bCompiled successfully\b)/i;

/** Completed work with evidence: commits, finished plan items, passing test runs. */
export function completed(turns: Turn[]): Fact[] {
  const out: Fact[] = [];
  const seen = new Set<string>();
  const add = (text: string, turn: string): void => {
    const k = signature(text);
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ text: clip(text, 240), turn });
  };
  let prevDone = new Set<string>();
  for (const t of turns) {
    for (const c of t.tool_calls) {
      if (c.name === "git_commit") add(`commit ${String(c.input.sha)}: ${String(c.input.message)}`, t.id);
      const cmd = commandText(c.input);
      const m = COMMIT_MSG.exec(cmd);
      if (m) {
        const sha = t.tool_results.map((r) => SHA_LINE.exec(r.output)?.[1]).find(Boolean);
        add(`commit${sha ? ` ${sha}` : ""}: ${(m[1] ?? m[2] ?? "").replace(/\\"/g, '"')}`, t.id);
      }
    }
    for (const r of t.tool_results) {
      const sha = SHA_LINE.exec(r.output);
      if (sha && !t.tool_calls.some((c) => COMMIT_MSG.test(commandText(c.input))))
        add(`commit ${sha[1]}: ${sha[2]}`, t.id);
      const pass = PASSING.exec(r.output);
      if (pass && !r.is_error) add(`verified: ${pass[1]!.trim()}`, t.id);
    }
    const todos = todosOf(t);
    if (todos) {
      const done = new Set(todos.filter((x) => x.status === "completed").map((x) => x.content));
      for (const d of done) if (!prevDone.has(d)) add(`done: ${d}`, t.id);
      prevDone = done;
    }
  }
  return out;
}

/** Open work: the latest task list's unfinished items, else the agent's own stated next steps. */
export function nextSteps(turns: Turn[]): Fact[] {
  for (let i = turns.length - 1; i >= 0; i--) {
    const todos = todosOf(turns[i]!);
    if (todos) {
      return todos
        .filter((x) => x.status !== "completed")
        .map((x) => ({ text: `${x.content} (${x.status})`, turn: turns[i]!.id }));
    }
  }
  const last = [...turns].reverse().find((t) => t.role === "assistant" && conversational(t) && prose(t.text).trim());
  if (!last) return [];
  return sentences(prose(last.text))
    .filter((s) => /\b(next|then|should|need to|todo|remaining|will|could|recommend|try)\b/i.test(s))
    .slice(0, 5)
    .map((s) => ({ text: clip(s, 220), turn: last.id }));
}

/** Where things stand: the agent's last words, and the last test outcome. */
export function currentState(turns: Turn[]): Fact[] {
  const out: Fact[] = [];
  const last = [...turns]
    .reverse()
    .find((t) => t.role === "assistant" && conversational(t) && prose(t.text).trim().length > 20);
  if (last) out.push({ text: clip(prose(last.text), 600), turn: last.id });
  return out;
}

/** Open questions and unresolved failures at the end of the span. */
export function blockers(turns: Turn[], fails: Failure[]): Fact[] {
  const out: Fact[] = [];
  const tail = new Set(turns.slice(Math.floor(turns.length * 0.85)).map((t) => t.id));
  for (const f of fails)
    if (tail.has(f.last_turn) && !f.remediation) out.push({ text: `unresolved: ${f.text}`, turn: f.last_turn });
  const last = [...turns].reverse().find((t) => t.role === "assistant" && conversational(t) && prose(t.text).trim());
  if (last)
    for (const s of sentences(prose(last.text)))
      if (s.endsWith("?") && s.length > 15) out.push({ text: clip(s, 200), turn: last.id });
  return out.slice(0, 8);
}

const METRIC =
  /\b(\d+(?:\.\d+)?)\s*(passed|failed|errors?|warnings?|tests?|skipped|ms|s|seconds|minutes|MB|KB|GB|%|files?|lines?)\b/g;

/** Numbers the session measured, the latest value per metric kept with its history. */
export function metrics(turns: Turn[]): Record<string, Metric> {
  const out: Record<string, Metric> = {};
  for (const t of turns) {
    for (const r of t.tool_results) {
      for (const line of r.output.split("\n")) {
        if (!/\b(passed|failed|tests?|Time|Duration|took|elapsed|coverage|size)\b/i.test(line) || line.length > 200)
          continue;
        for (const m of line.matchAll(METRIC)) {
          const unit = m[2]!.toLowerCase().replace(/s$/, "");
          const label = ["passed", "failed", "error", "warning", "test", "skipped"].includes(unit)
            ? `tests ${unit}`
            : `${clip(line.replace(m[0], "").replace(/[^\w ]+/g, " "), 40)} (${unit})`;
          const value = `${m[1]} ${m[2]}`;
          const prev = out[label];
          out[label] = { value, turn: t.id, history: [...(prev?.history ?? []), { value, turn: t.id }].slice(-5) };
        }
      }
    }
  }
  return out;
}

/** All sections for a span of turns. */
export function extractSections(turns: Turn[], opts: { title?: string; cwd?: string } = {}): Sections {
  const fails = failures(turns, opts.cwd);
  const files: Sections["files"] = {};
  for (const e of fileEvents(turns)) {
    const p = displayPath(e.path, opts.cwd);
    (files[p] ??= []).push({ op: e.op, turn: e.turn });
  }
  return {
    intent: intents(turns, opts.title),
    files,
    decisions: decisions(turns),
    state: currentState(turns),
    blockers: blockers(turns, fails),
    next: nextSteps(turns),
    constraints: userConstraints(turns),
    completed: completed(turns),
    failures: fails,
    metrics: metrics(turns),
  };
}
