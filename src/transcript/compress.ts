// compress_context: parse the conversation, summarize the turns since the last compression into anchored
// sections, merge with the previous summary, check probes, re-insert what failed, store, and account tokens.
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

import { z } from "zod";

import { AppError } from "../errors.js";
import { MAX_INLINE_CHARS, MAX_PATH_CHARS } from "../limits.js";
import { isPaused } from "../memory/admin.js";
import { distill, type DistillResult } from "../memory/distill.js";
import type { Db } from "../storage/db.js";
import { appendSummary, latestSummary, sessionTranscript } from "../storage/summaries.js";
import { redact, redactDeep } from "../text/redact.js";
import { countTokens } from "../text/tokens.js";
import { conversational, extractSections } from "./extract.js";
import { parseMessagesValue } from "./formats/messages.js";
import { emptySections, mergeSections } from "./merge.js";
import { parseTranscriptFile } from "./parse.js";
import type { ProbeReport } from "./probes.js";
import { checkProbes, generateProbes } from "./probes.js";
import type { SectionKey } from "./render.js";
import { renderSections, SECTION_TITLES } from "./render.js";
import type { Probe, ProbeType, Transcript, Turn } from "./schema.js";
import { Message, Sections, TranscriptFormat } from "./schema.js";

export const CompressInput = z
  .object({
    transcript_path: z
      .string()
      .min(1)
      .max(MAX_PATH_CHARS)
      .optional()
      .describe("a transcript file memcards parses itself (format detected)"),
    messages: z
      .array(Message)
      .max(500)
      .refine((ms) => ms.reduce((n, m) => n + m.content.length, 0) <= MAX_INLINE_CHARS, {
        error: `at most ${MAX_INLINE_CHARS} characters of content in all messages; pass transcript_path instead`,
      })
      .optional()
      .describe("a short array of {role, content} since the last call"),
    session_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("the session to merge into (default: the transcript's own id)"),
    keep_recent: z.number().int().min(0).max(50).default(5).describe("messages kept verbatim after the summary"),
    budget_tokens: z
      .number()
      .int()
      .min(200)
      .max(50_000)
      .optional()
      .describe("target summary size (default: ~1/13 of what is summarized, 500–6,000)"),
    focus: z.string().max(500).optional().describe("what to keep first, like /compact <focus>"),
    format: TranscriptFormat.optional().describe("force a transcript format instead of detecting it"),
    route: z
      .enum(["auto", "deterministic"])
      .default("auto")
      .describe("auto: where the client offers sampling, its model rewrites intent/state/next steps (checked)"),
  })
  .strict();
export type CompressInput = z.input<typeof CompressInput>;

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
  ms: z.number(),
});
export type CompressStats = z.infer<typeof CompressStats>;

export interface CompressResult {
  session_id: string;
  source: { kind: "transcript_path" | "messages" | "session" | "newest_claude_code"; path?: string; format: string };
  /** The summary followed by the kept recent messages: what the agent continues from. */
  markdown: string;
  summary: { markdown: string; sections: Sections };
  /** The turns this compression summarized (the model route rewrites from them). */
  span: Turn[];
  stats: CompressStats;
  probes: { before: ProbeReport; after: ProbeReport };
  notes: string[];
  partial_tail: boolean;
  /** Memory units written from this span: added, merged, superseded, in conflict, dropped; turns archived. */
  memories?: DistillResult;
  /** The stored summary's sequence number in its session (absent when nothing was stored). */
  seq?: number;
  /** The probes generated from the summarized span. */
  probe_list: Probe[];
  /** Turns handed to the background distiller (the units appear in search_memory when it is done). */
  memories_queued?: number;
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

export interface CompressDeps {
  db: Db;
  projectId: number;
  /** The project root, to find Claude Code's newest transcript when nothing else names one. */
  root: string;
  home?: string;
  /**
   * Checks a transcript path before it is read and returns the path to read (the MCP server and the hooks
   * confine reads to the project, the client's roots and the agents' transcript folders).
   */
  readable?: (path: string) => string;
  /** Reads only the first N turns (evaluation of incremental use: compress a transcript in parts). */
  limitTurns?: number;
  /**
   * Distils in the background instead of inline (the server's worker); inline when absent. Returns the
   * result when it had to distil inline after all.
   */
  distill?: (job: DistillJob) => DistillResult | undefined;
}

/** What a background distillation needs: the compressed span and its sections. */
export interface DistillJob {
  projectId: number;
  sessionId: string;
  span: Turn[];
  sections: Sections;
}

const PROBE_SECTION: Record<ProbeType, SectionKey> = {
  artifact: "files",
  error: "failures",
  decision: "decisions",
  constraint: "constraints",
  next: "next",
  state: "state",
};

/** Claude Code keeps a project's sessions under ~/.claude/projects/<root with / and . as ->. */
export function claudeProjectDir(root: string, home = homedir()): string {
  return join(home, ".claude", "projects", resolve(root).replace(/[/\\.:]/g, "-"));
}

function newestClaudeTranscript(root: string, home?: string): string | undefined {
  const dir = claudeProjectDir(root, home);
  let best: { path: string; mtime: number } | undefined;
  try {
    for (const f of readdirSync(dir)) {
      if (!f.endsWith(".jsonl")) continue;
      const p = join(dir, f);
      const m = statSync(p).mtimeMs;
      if (!best || m > best.mtime) best = { path: p, mtime: m };
    }
  } catch {
    return undefined;
  }
  return best?.path;
}

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

/**
 * A kept message, verbatim up to a cap so one giant paste cannot undo the compression; tool activity between
 * kept messages as one line per call (name, input, first line of output) so nothing recent goes unseen.
 */
function renderKept(t: Turn, cap = 2000): string {
  if (!conversational(t) || !(t.role === "user" || t.role === "assistant") || !t.text.trim()) {
    if (t.kind !== "message") return "";
    const calls = t.tool_calls.map((c) => `${c.name} ${oneLine(JSON.stringify(c.input), 160)}`);
    const outs = t.tool_results.map(
      (r) =>
        `${r.is_error ? "error: " : "→ "}${oneLine(
          r.output
            .split("\n")
            .filter((l) => l.trim())
            .slice(0, 3)
            .join(" / "),
          200,
        )}`,
    );
    const lines = [...calls, ...outs];
    return lines.length > 0 ? `_tool (${t.id})_: ${lines.join(" ")}` : "";
  }
  const body = t.text.trim();
  const n = countTokens(body);
  const text = n > cap ? `${body.slice(0, Math.floor((body.length * cap) / n))}\n[… ${n - cap} tokens cut]` : body;
  return `**${t.role}** (${t.id}):\n${text}`;
}

export function defaultBudget(tokensSummarized: number): number {
  return Math.max(500, Math.min(6000, Math.round(tokensSummarized / 13)));
}

function sessionIdFor(path: string | undefined, t: Transcript): string {
  if (t.session_id) return t.session_id;
  if (path) return `file-${createHash("sha1").update(resolve(path)).digest("hex").slice(0, 12)}`;
  return "messages";
}

/** A transcript with every turn's text, tool inputs and tool outputs (and its title) redacted. */
export function redactTranscript(t: Transcript): Transcript {
  return {
    ...t,
    ...(t.title !== undefined ? { title: redact(t.title) } : {}),
    turns: t.turns.map((turn) => ({
      ...turn,
      text: redact(turn.text),
      tool_calls: turn.tool_calls.map((c) => ({ ...c, input: redactDeep(c.input) })),
      tool_results: turn.tool_results.map((r) => ({ ...r, output: redact(r.output) })),
    })),
  };
}

/** Runs one compression. Pure over its inputs apart from the one summary row it appends. */
export function compressContext(deps: CompressDeps, raw: CompressInput): CompressResult {
  return compressTraced(deps, raw).result;
}

/** Runs one compression as compressContext does, and also returns how its summary came to be. */
export function compressTraced(
  deps: CompressDeps,
  raw: CompressInput,
): { result: CompressResult; trace: CompressTrace } {
  const started = performance.now();
  const input = CompressInput.parse(raw);
  const notes: string[] = [];
  let transcript: Transcript;
  let source: CompressResult["source"];
  if (input.messages && input.transcript_path) {
    throw new AppError("BAD_INPUT", "pass either transcript_path or messages, not both");
  }
  if (input.messages) {
    if (input.messages.length === 0)
      throw new AppError("BAD_INPUT", "messages is empty; pass the messages since the last call");
    transcript = parseMessagesValue(input.messages);
    source = { kind: "messages", format: "messages-json" };
  } else {
    let path = input.transcript_path;
    let kind: CompressResult["source"]["kind"] = "transcript_path";
    if (!path && input.session_id) {
      path = sessionTranscript(deps.db, input.session_id);
      kind = "session";
    }
    if (!path) {
      path = newestClaudeTranscript(deps.root, deps.home);
      kind = "newest_claude_code";
      if (path)
        notes.push(
          `No transcript was named: used the newest Claude Code transcript of this project, ${path}. With two sessions open it may be the other one; pass transcript_path to be sure.`,
        );
    }
    if (!path) {
      throw new AppError(
        "BAD_INPUT",
        `no transcript to compress: pass transcript_path (or messages), or a session_id whose transcript a hook recorded; no Claude Code transcripts found in ${claudeProjectDir(deps.root, deps.home)}`,
      );
    }
    if (deps.readable) path = deps.readable(path);
    transcript = parseTranscriptFile(path, input.format);
    source = { kind, path: resolve(path), format: transcript.format };
  }
  // Secrets go before anything reads the turns: the summary, probes, kept messages and memory see none.
  transcript = redactTranscript(transcript);
  if (transcript.partial_tail)
    notes.push("The transcript's last line was cut off (still being written); it was left for the next compression.");
  if (transcript.skipped > 0)
    notes.push(`${transcript.skipped} unreadable record(s) skipped: ${JSON.stringify(transcript.skip_reasons)}.`);

  const sessionId = input.session_id ?? sessionIdFor(source.path, transcript);
  const prev = latestSummary(deps.db, sessionId);
  const turns = deps.limitTurns !== undefined ? transcript.turns.slice(0, deps.limitTurns) : transcript.turns;
  let start = 0;
  if (prev && source.kind !== "messages") {
    const at = prev.last_turn_id ? turns.findIndex((t) => t.id === prev.last_turn_id) : -1;
    if (at >= 0) start = at + 1;
    else if (
      prev.last_turn_index !== null &&
      prev.format === transcript.format &&
      prev.last_turn_index < turns.length
    ) {
      start = prev.last_turn_index + 1;
      notes.push("The previous compression's last turn id was not found; resumed from its position.");
    } else
      notes.push(
        "The previous compression's position was not found in this transcript; all of it was read and merged.",
      );
  }
  // Keep the last `keep_recent` conversational messages verbatim; summarize what lies between.
  let cut = turns.length;
  let kept = 0;
  for (let i = turns.length - 1; i >= start && kept < input.keep_recent; i--) {
    if (
      (turns[i]!.role === "user" || turns[i]!.role === "assistant") &&
      conversational(turns[i]!) &&
      turns[i]!.text.trim()
    ) {
      cut = i;
      kept++;
    }
  }
  if (kept < input.keep_recent) cut = Math.max(start, cut);
  // In tool-heavy sessions five messages can span most of the transcript: the kept region is bounded.
  if (input.keep_recent > 0) cut = Math.max(cut, Math.min(turns.length, turns.length - 6 * input.keep_recent), start);
  else cut = turns.length;
  const span = turns.slice(start, cut);
  const keptRegion = turns.slice(cut);
  const keptTurns = keptRegion.filter(
    (t) => (t.role === "user" || t.role === "assistant") && conversational(t) && t.text.trim(),
  );

  const prevSections = prev ? Sections.parse(prev.sections) : emptySections();
  const prevStats = (prev?.stats ?? {}) as { tokens_summarized?: number };
  const spanTokens = span.filter((t) => t.role !== "system").reduce((a, t) => a + turnTokens(t), 0);
  const totalBefore = turns.reduce((a, t) => a + turnTokens(t), 0);
  const summarizedSoFar = (prevStats.tokens_summarized ?? 0) + spanTokens;
  const sections =
    span.length > 0
      ? mergeSections(prevSections, extractSections(span, { title: transcript.title, cwd: transcript.cwd }))
      : prevSections;
  if (span.length === 0) notes.push("Nothing new to summarize since the last compression.");
  const budget = input.budget_tokens ?? defaultBudget(summarizedSoFar);

  const first = renderSections(sections, budget, {}, input.focus);
  const probes = generateProbes(span, transcript.cwd);
  const before = checkProbes(probes, first.markdown);
  const extra: Partial<Record<SectionKey, string[]>> = {};
  for (const p of before.failed) (extra[PROBE_SECTION[p.type]] ??= []).push(`${p.fact} _(re-inserted)_`);
  const final = before.failed.length > 0 ? renderSections(sections, budget, extra, input.focus) : first;
  const after = checkProbes(probes, final.markdown);

  const keptMd = keptRegion
    .map((t) => renderKept(t))
    .filter(Boolean)
    .join("\n\n");
  const markdown = keptMd ? `${final.markdown}\n\n## Recent Messages (verbatim)\n${keptMd}` : final.markdown;
  const tokensAfter = final.tokens;
  const stats: CompressStats = {
    tokens_before: spanTokens,
    tokens_after: tokensAfter,
    ratio: tokensAfter > 0 ? Math.round((spanTokens / tokensAfter) * 100) / 100 : 0,
    tokens_total_before: totalBefore,
    tokens_total_after: countTokens(markdown),
    probe_score_before: Math.round(before.score * 1000) / 1000,
    probe_score: Math.round(after.score * 1000) / 1000,
    probes_total: probes.length,
    probes_failed: after.failed.map((p) => ({ type: p.type, expect: p.expect, turn: p.turn })),
    turns_total: turns.length,
    turns_summarized: span.length,
    kept_recent: keptTurns.length,
    skipped: transcript.skipped,
    compression: (prev?.seq ?? 0) + (span.length > 0 ? 1 : 0),
    ms: Math.round(performance.now() - started),
  };
  let memories: DistillResult | undefined;
  let memoriesQueued = 0;
  let seq: number | undefined;
  const paused = isPaused(deps.db, deps.projectId);
  if (paused) notes.push("Memory is paused for this project (memcards resume): this summary was not stored.");
  if (span.length > 0 && !paused) {
    const last = span[span.length - 1]!;
    seq = appendSummary(
      deps.db,
      deps.projectId,
      {
        session_id: sessionId,
        markdown: final.markdown,
        sections: JSON.stringify(sections),
        last_turn_id: last.id,
        last_turn_index: last.index,
        format: transcript.format,
        stats: JSON.stringify({ ...stats, tokens_summarized: summarizedSoFar }),
      },
      source.path,
    );
    // What outlives the session: typed memory units from the same span (CBDP).
    if (deps.distill) {
      memories = deps.distill({ projectId: deps.projectId, sessionId, span, sections });
      if (!memories) memoriesQueued = span.length;
    } else memories = distill(deps.db, deps.projectId, sessionId, span, sections);
  }
  const result: CompressResult = {
    session_id: sessionId,
    source,
    markdown,
    summary: { markdown: final.markdown, sections },
    span,
    stats,
    probes: { before, after },
    notes,
    partial_tail: transcript.partial_tail,
    ...(memories ? { memories } : {}),
    ...(memoriesQueued ? { memories_queued: memoriesQueued } : {}),
    ...(seq !== undefined ? { seq } : {}),
    probe_list: probes,
  };
  const trace: CompressTrace = {
    draft: first.markdown,
    draft_context: keptMd ? `${first.markdown}\n\n## Recent Messages (verbatim)\n${keptMd}` : first.markdown,
    turns,
  };
  return { result, trace };
}

export { SECTION_TITLES };
