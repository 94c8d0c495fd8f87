// compress_context's compression of a transcript: read the turns since the last compression, summarize them into
// anchored sections merged with the previous summary, check probes and re-insert what failed, keep the latest
// messages verbatim, and account tokens. Nothing is written here: storing and distilling are the session's steps.
import { z } from "zod";

import type { ToolCall, Turn } from "../../conversation/schema.js";
import { Sections } from "../../conversation/schema.js";
import { latestSummary, type SummaryRow } from "../../storage/summaries.js";
import { countTokens } from "../../text/tokens.js";
import { isNoiseLine, isQuotedError, resultFailed } from "../events/failures.js";
import { commandText, displayPath, fileEvents } from "../events/ledger.js";
import { conversational, extractSections } from "../extraction/extract.js";
import { injectedKind } from "../extraction/human.js";
import { emptySections, mergeSections } from "../extraction/merge.js";
import { type CompressSource, readSource, sessionIdFor, type SourceDeps } from "../formats/source.js";
import { BudgetChoice, chooseBudget } from "../rendering/budget.js";
import type { Rendered, SectionKey } from "../rendering/render.js";
import { renderSections, SECTION_TITLES, turnRef } from "../rendering/render.js";
import type { Probe, ProbeType } from "../schema.js";
import { CompressInput } from "./input.js";
import type { ProbeReport } from "./probes.js";
import { checkProbes, generateProbes, normalize } from "./probes.js";

export { CompressInput };

/** The heading of the recent messages kept after the summary. */
export const RECENT_TITLE = "Recent Messages (verbatim)";
/** Tokens a compact summary may spend on the headings of the sections it fills (three or four headings). */
const COMPACT_FRAME = 24;

export const CompressStats = z.object({
  tokens_before: z.number().int(),
  tokens_after: z.number().int(),
  ratio: z.number(),
  tokens_total_before: z.number().int(),
  tokens_total_after: z.number().int(),
  probe_score_before: z.number(),
  probe_score: z.number(),
  probes_total: z.number().int(),
  probes_failed: z.array(z.object({ type: z.string(), expect: z.array(z.string()), turn: z.string() })),
  turns_total: z.number().int(),
  turns_summarized: z.number().int(),
  kept_recent: z.number().int(),
  skipped: z.number().int(),
  compression: z.number().int(),
  /** The budget and how it was chosen. */
  budget: BudgetChoice,
  ms: z.number(),
});
export type CompressStats = z.infer<typeof CompressStats>;

/** A compression before anything is stored: the summary, the kept messages, the accounting and the probes. */
export interface Compression {
  session_id: string;
  source: CompressSource;
  /** The summary followed by the kept recent messages: what the agent continues from. */
  markdown: string;
  summary: { markdown: string; sections: Sections };
  /** The turns this compression summarized (the model route rewrites from them). */
  span: Turn[];
  stats: CompressStats;
  probes: { before: ProbeReport; after: ProbeReport };
  notes: string[];
  partial_tail: boolean;
  /** The probes generated from the summarized span. */
  probe_list: Probe[];
}

/** How a compression's summary came to be, beside its result. */
export interface CompressTrace {
  /** The summary before probe-failed facts were re-inserted (what the summarizer alone produced). */
  draft: string;
  /** The draft followed by the kept recent messages: the continuation context before re-insertion. */
  draft_context: string;
  /** Every turn read (the summarized span, the kept messages and what earlier compressions covered). */
  turns: Turn[];
}

export interface TranscriptDeps extends SourceDeps {
  /** Reads only the first N turns (evaluation of incremental use: compress a transcript in parts). */
  limitTurns?: number;
}

const PROBE_SECTION: Record<ProbeType, SectionKey> = {
  artifact: "files",
  error: "failures",
  decision: "decisions",
  constraint: "constraints",
  next: "next",
  state: "state",
};

const turnTokenCache = new WeakMap<Turn, number>();

/** Tokens a turn costs in context: its text, tool inputs and tool outputs. */
export function turnTokens(t: Turn): number {
  let n = turnTokenCache.get(t);
  if (n === undefined) {
    n = countTokens(t.text);
    for (const c of t.tool_calls) n += countTokens(`${c.name} ${JSON.stringify(c.input)}`);
    for (const r of t.tool_results) n += countTokens(r.output);
    turnTokenCache.set(t, n);
  }
  return n;
}

function oneLine(s: string, max: number): string {
  const l = s.replace(/\s+/g, " ").trim();
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
}

/** A message's lines quoted, so a heading or a rule inside it cannot pass for a section of the summary. */
function quoted(body: string): string {
  return body
    .split("\n")
    .map((l) => (l.trim() ? `> ${l}` : ">"))
    .join("\n");
}

/** The first lines of a text up to `cap` tokens, cut at a line end where one is near, with what was cut counted. */
function capped(body: string, cap: number): string {
  const n = countTokens(body);
  if (n <= cap) return body;
  let cut = Math.floor((body.length * cap) / n);
  const nl = body.lastIndexOf("\n", cut);
  if (nl > cut * 0.6) cut = nl;
  return `${body.slice(0, cut).trimEnd()} [… ${n - countTokens(body.slice(0, cut))} tokens cut]`;
}

/** A tool call as a person would glance at it: the command or the file, never the call's JSON. */
function callGlance(c: ToolCall, edited: readonly string[]): string {
  const cmd = commandText(c.input);
  if (cmd) return `\`${oneLine(cmd.split("\n").find((l) => l.trim()) ?? cmd, 100)}\``;
  const path = ["file_path", "filePath", "path", "target_file", "notebook_path"]
    .map((k) => c.input[k])
    .find((v): v is string => typeof v === "string" && v.trim() !== "");
  const shown = path ?? (edited.length > 0 ? edited.join(", ") : undefined);
  return shown ? `${c.name} \`${oneLine(shown, 100)}\`` : c.name;
}

/** The lines an export writes around each message (`_**Agent (model 2026-05-21 10:28:12Z)**_`): not words. */
const EXPORT_HEADER = /^_\*\*(?:Agent|Assistant|User|Human)\b[^\n]*\*\*_$/;
/** A table's rule row (`|---|:--|`): no words. */
const TABLE_RULE = /^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?$/;
/**
 * A markdown heading, or a short label ending in a colon that opens on a capital (`The changes I've made:`,
 * `**Validation:**`), written at the line's start: an indented line or a lower-case one (`try:`, `else:`) is code.
 */
const LABEL = /^(?:#{1,6}\s+\S.{0,80}|(?:\*\*)?\p{Lu}[^`|]{0,60}:(?:\*\*)?)$/u;
/** A heading or label as the opening of the line it heads: `Final state:`. */
const label = (line: string): string => {
  const l = line
    .trim()
    .replace(/^#{1,6}\s+/, "")
    .replace(/\*\*/g, "");
  return /:$/.test(l) ? l : `${l}:`;
};
/** Code blocks up to this many lines stay as they are (a command, a one-line fix); longer ones become a note. */
const SHORT_CODE = 3;

/**
 * A kept message as a person reads it: the export's own header lines and blank lines left out, and every long block
 * of code (fenced, or aider's `<source>` listing of a file) one note of its size, so the agent's words stay.
 */
export function tidyMessage(text: string): string {
  const out: string[] = [];
  let block: { close: RegExp; lines: string[]; fenced: boolean } | undefined;
  /** Whether the last line pushed is a heading or a label still waiting for the line it heads. */
  let heading = false;
  const flush = () => {
    if (!block) return;
    heading = false;
    const body = block.lines.filter((l) => l.trim());
    if (body.length <= SHORT_CODE) out.push(...body.map((l) => (block!.fenced ? `    ${l.trim()}` : l)));
    // The note stays on the line that introduced the code (its file name, `Updated version:`), when there is one.
    else if (out.length > 0 && !out[out.length - 1]!.includes(" lines of code]"))
      out[out.length - 1] += ` [${body.length} lines of code]`;
    else out.push(`[${body.length} lines of code]`);
    block = undefined;
  };
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (block) {
      if (block.close.test(t)) flush();
      else block.lines.push(line);
      continue;
    }
    const fence = /^(`{3,}|~{3,})/.exec(t);
    if (fence) {
      block = { close: new RegExp(`^${fence[1]!}\\s*$`), lines: [], fenced: true };
      continue;
    }
    if (/^<source\b[^>]*>$/i.test(t)) {
      block = { close: /^<\/source>$/i, lines: [], fenced: false };
      continue;
    }
    if (!t || EXPORT_HEADER.test(t) || TABLE_RULE.test(t)) continue;
    // A heading or a label (`Validation:`) says nothing alone: it opens the line it heads, when that line is not
    // indented (code or a nested list keeps its lines) and not a heading itself (`## Summary` over `### Changes`).
    if (heading && line === line.trimStart() && !LABEL.test(t))
      out[out.length - 1] = `${label(out[out.length - 1]!)} ${t}`;
    else out.push(line.trimEnd());
    heading = line === line.trimStart() && LABEL.test(t) && out[out.length - 1] === line.trimEnd();
  }
  flush();
  return out.join("\n");
}

/** One kept turn: a message (quoted), tool activity (merged with the activity around it), or nothing. */
type KeptPart = { kind: "message" | "note"; text: string } | { kind: "tools"; turn: string; glances: string[] };

function keptPart(t: Turn, cap: number, cwd: string | undefined): KeptPart | undefined {
  if (!conversational(t) || !(t.role === "user" || t.role === "assistant") || !tidyMessage(t.text).trim()) {
    const injected = t.role === "user" && t.kind === "meta" ? injectedKind(t.text) : undefined;
    if (injected && injected !== "system")
      return {
        kind: "note",
        text: `_${injected} (${turnRef(t.id)})_: ${oneLine(t.text.split("\n")[0]!.replace(/<[^>]+>/g, " "), 120)}`,
      };
    if (t.kind !== "message") return undefined;
    const edited = [...new Set(fileEvents([t]).map((e) => displayPath(e.path, cwd)))];
    const calls = t.tool_calls.map((c) => callGlance(c, edited));
    const errors = t.tool_results
      .filter((r) => r.is_error || resultFailed(r, undefined))
      .map((r) => `failed: ${oneLine(r.output.split("\n").find((l) => l.trim()) ?? "", 160)}`);
    const glances = [...calls, ...errors];
    return glances.length > 0 ? { kind: "tools", turn: t.id, glances } : undefined;
  }
  // The files the message's own edit markers changed stay named when its text is cut.
  const changed = [...new Set(fileEvents([t]).map((e) => displayPath(e.path, cwd)))];
  const note = changed.length > 0 ? `\n_(changed: ${changed.map((p) => `\`${p}\``).join(", ")})_` : "";
  return {
    kind: "message",
    // The speaker heads the message's first line: a line of its own would say nothing.
    text: `**${t.role}** (${turnRef(t.id)}): ${quoted(capped(tidyMessage(t.text).trim(), cap)).replace(/^> ?/, "")}${note}`,
  };
}

/** Glances of a run of tool turns: a repeated one once with its count. */
function mergedGlances(glances: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const g of glances) counts.set(g, (counts.get(g) ?? 0) + 1);
  return [...counts].map(([g, n]) => (n > 1 ? `${g} ×${n}` : g)).join("; ");
}

/**
 * The kept turns as markdown: messages verbatim (tidied, capped at `cap` tokens), and each run of tool turns
 * between them as one line of the commands and files they touched and the errors they hit, never raw tool output.
 */
function renderKeptTurns(kept: readonly Turn[], cap: number, cwd?: string): string {
  const out: string[] = [];
  let run: { from: string; to: string; glances: string[] } | undefined;
  const close = () => {
    if (!run) return;
    const at = run.from === run.to ? turnRef(run.from) : `${turnRef(run.from)}–${turnRef(run.to)}`;
    out.push(`_tool (${at})_: ${mergedGlances(run.glances)}`);
    run = undefined;
  };
  for (const t of kept) {
    const p = keptPart(t, cap, cwd);
    if (!p) continue;
    if (p.kind === "tools") {
      if (run) {
        run.to = p.turn;
        run.glances.push(...p.glances);
      } else run = { from: p.turn, to: p.turn, glances: [...p.glances] };
      continue;
    }
    close();
    out.push(p.text);
  }
  close();
  return out.join("\n\n");
}

/** The largest share of the budget the recent messages may take; the summary keeps the rest. */
export const TAIL_SHARE = 0.25;

/**
 * The kept region within `limit` tokens: messages are capped shorter until it fits, then the oldest kept turns
 * go first; the last message always stays (cut to what fits).
 */
export function renderTail(kept: readonly Turn[], limit: number, cwd?: string): string {
  const join = (ts: readonly Turn[], cap: number) => renderKeptTurns(ts, cap, cwd);
  for (const cap of [2000, 800, 400, 200, 100, 50]) {
    const md = join(kept, cap);
    if (countTokens(md) <= limit) return md;
  }
  for (let from = 1; from < kept.length; from++) {
    const md = join(kept.slice(from), 50);
    if (countTokens(md) <= limit) return md;
  }
  const last = kept.length > 0 ? join(kept.slice(-1), Math.max(10, limit - 30)) : "";
  return countTokens(last) <= limit ? last : "";
}

/** Where to resume: after the previous compression's last turn (by id, else by position), or from the start. */
export function resumeAt(
  prev: Pick<SummaryRow, "last_turn_id" | "last_turn_index" | "format"> | undefined,
  turns: readonly Turn[],
  source: Pick<CompressSource, "kind" | "format">,
): { start: number; note?: string } {
  if (!prev || source.kind === "messages") return { start: 0 };
  const at = prev.last_turn_id ? turns.findIndex((t) => t.id === prev.last_turn_id) : -1;
  if (at >= 0) return { start: at + 1 };
  if (prev.last_turn_index !== null && prev.format === source.format && prev.last_turn_index < turns.length) {
    const note = "The previous compression's last turn id was not found; resumed from its position.";
    return { start: prev.last_turn_index + 1, note };
  }
  const note = "The previous compression's position was not found in this transcript; all of it was read and merged.";
  return { start: 0, note };
}

/** A message kept verbatim: the user's or the assistant's own words. */
const keepable = (t: Turn): boolean =>
  (t.role === "user" || t.role === "assistant") && conversational(t) && t.text.trim() !== "";

/**
 * A turn that counts toward the recent messages: the person's and the agent's, and also what a client or CI wrote
 * in the user's place (an interruption, a review event) — it is recent activity, shown as one line, never as words.
 */
const recentTurn = (t: Turn): boolean =>
  keepable(t) || (t.role === "user" && t.kind === "meta" && !t.sidechain && injectedKind(t.text) !== undefined);

/** Splits the turns from `start` into the span to summarize and the recent region kept verbatim. */
export function splitRecent(turns: Turn[], start: number, keepRecent: number): { span: Turn[]; kept: Turn[] } {
  // Keep the last `keepRecent` conversational messages verbatim; summarize what lies between.
  let cut = turns.length;
  let kept = 0;
  for (let i = turns.length - 1; i >= start && kept < keepRecent; i--) {
    if (recentTurn(turns[i]!)) {
      cut = i;
      kept++;
    }
  }
  if (kept < keepRecent) cut = Math.max(start, cut);
  // In tool-heavy sessions five messages can span most of the transcript: the kept region is bounded.
  if (keepRecent > 0) cut = Math.max(cut, Math.min(turns.length, turns.length - 6 * keepRecent), start);
  else cut = turns.length;
  return { span: turns.slice(start, cut), kept: turns.slice(cut) };
}

export interface SpanSummary {
  sections: Sections;
  /** The summary as the summarizer alone rendered it. */
  draft: Rendered;
  /** The summary with the facts of failed probes re-inserted (the draft itself when none failed). */
  final: Rendered;
  probes: Probe[];
  before: ProbeReport;
  after: ProbeReport;
  budget: BudgetChoice;
  /** The session holds fewer tokens than the budget: the summary is kept within them, without empty sections. */
  compact: boolean;
  /** The recent messages as rendered within their share of the budget ("" without any). */
  tail: string;
}

/** Merges the span into the previous sections and renders them under budget, re-inserting what a probe missed. */
export function summarizeSpan(
  span: Turn[],
  prevSections: Sections,
  opts: {
    title?: string | undefined;
    cwd?: string | undefined;
    /** The caller's budget; without it the default follows the sections and `tokens`. */
    budget?: number | undefined;
    /** Tokens the session's compressions have summarized, this span included. */
    tokens?: number;
    focus?: string | undefined;
    /** The kept recent turns: they settle which plan items got done. */
    after?: Turn[];
    /** Renders what the page holds besides the summary within a token limit (the recent messages). */
    tail?: (limit: number) => string;
  },
): SpanSummary {
  const sections =
    span.length > 0
      ? mergeSections(prevSections, extractSections(span, { title: opts.title, cwd: opts.cwd, after: opts.after }))
      : prevSections;
  const budget = chooseBudget(sections, opts.tokens ?? 0, opts.budget);
  // A session smaller than the budget gets a compact summary: empty sections left out, its lines within the
  // session's own size plus the few headings they sit under (COMPACT_FRAME), so a short request is kept whole
  // rather than dropped and the summary never grows past the session by more than its headings.
  const compact = opts.tokens !== undefined && opts.tokens < budget.tokens;
  // The recent messages count against the budget: at least TAIL_SHARE of it, and whatever the summary leaves.
  const full = compact ? opts.tokens! + COMPACT_FRAME : budget.tokens;
  const need = opts.tail ? renderSections(sections, Math.min(full, budget.tokens), {}, opts.focus, compact).tokens : 0;
  const tail = opts.tail ? opts.tail(Math.max(Math.floor(budget.tokens * TAIL_SHARE), budget.tokens - need - 12)) : "";
  const reserve = tail ? countTokens(`## ${RECENT_TITLE}\n${tail}`) + 2 : 0;
  const cap = Math.max(0, Math.min(full, budget.tokens - reserve));
  const draft = renderSections(sections, cap, {}, opts.focus, compact);
  // A plan item the sections no longer hold open (done later) is not a next step to re-insert.
  const open = sections.next.map((f) => normalize(f.text));
  // An error probe is re-inserted only where the session hit a failure, or when it quotes one: an exception
  // named in a file a read showed is not a failure.
  // A failure later work settled (a clean rerun, or edits since) stays the one line Failures gives it.
  const settled = (f: (typeof sections.failures)[number]) => Boolean(f.resolved) || f.open === false;
  const failed = new Set(sections.failures.flatMap((f) => (settled(f) ? [] : [f.turn, f.last_turn])));
  const done = new Set(sections.failures.flatMap((f) => (settled(f) ? [f.turn, f.last_turn] : [])));
  // A decision probe is re-inserted only from a turn where the sections found a choice: narration and diagnoses
  // that merely share a decision's words (`instead of`, `rather than`) are not re-inserted as decisions.
  const chose = new Set(sections.decisions.map((d) => d.turn));
  const probes = generateProbes(span, opts.cwd).filter(
    (p) =>
      (p.type !== "next" || open.some((n) => n.includes(normalize(p.expect[0]!)))) &&
      (p.type !== "decision" || chose.has(p.turn)) &&
      (p.type !== "error" ||
        (failed.has(p.turn) && !isNoiseLine(p.fact.replace(/^- /, ""))) ||
        (!done.has(p.turn) && isQuotedError(p.fact.replace(/^- /, "")))),
  );
  const before = checkProbes(probes, draft.markdown);
  const extra: Partial<Record<SectionKey, string[]>> = {};
  // Re-inserted facts come first within the budget, up to 40% of it: the rest of the summary keeps 60%.
  let room = Math.round(cap * 0.4);
  for (const p of before.failed) {
    const line = `${p.fact} _(re-inserted)_`;
    const c = countTokens(line) + 1;
    if (c > room) continue;
    room -= c;
    (extra[PROBE_SECTION[p.type]] ??= []).push(line);
  }
  const final = before.failed.length > 0 ? renderSections(sections, cap, extra, opts.focus, compact) : draft;
  const after = checkProbes(probes, final.markdown);
  return { sections, draft, final, probes, before, after, budget, compact, tail };
}

/** The kept region as markdown: messages verbatim (capped), tool activity one line per call. */
export function renderKeptRegion(kept: readonly Turn[], cwd?: string): string {
  return renderKeptTurns(kept, 2000, cwd);
}

/** What the accounting of a compression is computed from. */
export interface StatsInput {
  turns: readonly Turn[];
  span: readonly Turn[];
  kept: readonly Turn[];
  /** Tokens of the summarized span (system turns left out). */
  spanTokens: number;
  summary: Pick<SpanSummary, "final" | "probes" | "before" | "after" | "budget">;
  /** The continuation context: the summary and the kept messages. */
  markdown: string;
  skipped: number;
  /** The session's compressions before this one. */
  prevSeq: number;
  /** performance.now() when the compression started. */
  started: number;
}

/** Token accounting, probe scores and counts of one compression. */
export function compressionStats(x: StatsInput): CompressStats {
  const { before, after, probes, final } = x.summary;
  const round = (n: number, by: number) => Math.round(n * by) / by;
  return {
    tokens_before: x.spanTokens,
    tokens_after: final.tokens,
    ratio: final.tokens > 0 ? round(x.spanTokens / final.tokens, 100) : 0,
    tokens_total_before: x.turns.reduce((a, t) => a + turnTokens(t), 0),
    tokens_total_after: countTokens(x.markdown),
    probe_score_before: round(before.score, 1000),
    probe_score: round(after.score, 1000),
    probes_total: probes.length,
    probes_failed: after.failed.map((p) => ({ type: p.type, expect: p.expect, turn: p.turn })),
    turns_total: x.turns.length,
    turns_summarized: x.span.length,
    kept_recent: x.kept.filter(keepable).length,
    skipped: x.skipped,
    compression: x.prevSeq + (x.span.length > 0 ? 1 : 0),
    budget: x.summary.budget,
    ms: Math.round(performance.now() - x.started),
  };
}

/**
 * Compresses the transcript the input names: reads it, resumes after the session's last compression, splits off
 * the recent messages, summarizes the span and accounts tokens. `tokensSummarized` is what the stored summary
 * records: every token its session's compressions have summarized, this one included.
 */
export function compressTranscript(
  deps: TranscriptDeps,
  raw: CompressInput,
): { result: Compression; trace: CompressTrace; tokensSummarized: number } {
  const started = performance.now();
  const input = CompressInput.parse(raw);
  const { transcript, source, notes } = readSource(deps, input);
  const sessionId = input.sessionId ?? sessionIdFor(source.path, transcript);
  const prev = latestSummary(deps.db, sessionId);
  const turns = deps.limitTurns !== undefined ? transcript.turns.slice(0, deps.limitTurns) : transcript.turns;
  const resume = resumeAt(prev, turns, source);
  if (resume.note) notes.push(resume.note);
  const { span, kept } = splitRecent(turns, resume.start, input.keepRecent);
  const spanTokens = span.filter((t) => t.role !== "system").reduce((a, t) => a + turnTokens(t), 0);
  const prevStats = (prev?.stats ?? {}) as { tokens_summarized?: number };
  const tokensSummarized = (prevStats.tokens_summarized ?? 0) + spanTokens;
  const prevSections = prev ? Sections.parse(prev.sections) : emptySections();
  const { title, cwd, skipped } = transcript;
  const s = summarizeSpan(span, prevSections, {
    title,
    cwd,
    budget: input.budgetTokens,
    tokens: tokensSummarized,
    focus: input.focus,
    after: kept,
    tail: (limit) => renderTail(kept, limit, cwd),
  });
  if (span.length === 0) notes.push("Nothing new to summarize since the last compression.");
  else if (s.compact)
    notes.push(
      `The session holds ${tokensSummarized} tokens, fewer than a summary's ${s.budget.tokens}: ${
        s.final.markdown
          ? "the summary leaves out empty sections and keeps to about the session's size."
          : "no summary line fits in that, so the summary is empty."
      }`,
    );
  const keptMd = s.tail;
  const withKept = (md: string) => (keptMd ? `${md ? `${md}\n\n` : ""}## ${RECENT_TITLE}\n${keptMd}` : md);
  const markdown = withKept(s.final.markdown);
  const prevSeq = prev?.seq ?? 0;
  const stats = compressionStats({ turns, span, kept, spanTokens, summary: s, markdown, skipped, prevSeq, started });
  const result: Compression = {
    session_id: sessionId,
    source,
    markdown,
    summary: { markdown: s.final.markdown, sections: s.sections },
    span,
    stats,
    probes: { before: s.before, after: s.after },
    notes,
    partial_tail: transcript.partial_tail,
    probe_list: s.probes,
  };
  const trace: CompressTrace = { draft: s.draft.markdown, draft_context: withKept(s.draft.markdown), turns };
  return { result, trace, tokensSummarized };
}

export { SECTION_TITLES };
