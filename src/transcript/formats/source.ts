// What a compression reads: the inline messages, a named transcript, the one a hook recorded for the session or
// Claude Code's newest transcript of the project; redacted before anything reads its turns.
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

import { AppError } from "../../errors.js";
import { allowedPath, checkReadable, type ReadScope } from "../../project/confine.js";
import type { Db } from "../../storage/db.js";
import { recentSessionIds, sessionExists, sessionTranscript } from "../../storage/summaries.js";
import { count } from "../../text/plural.js";
import { redact, redactDeep } from "../../text/redact.js";
import type { Message, Transcript, TranscriptFormat } from "../schema.js";
import { parseMessagesValue } from "./messages.js";
import { parseTranscriptFile, type TranscriptReader, transcriptReader } from "./parse.js";

export interface SourceDeps {
  db: Db;
  /** The project, to list its sessions when a session id is not known. */
  projectId?: number;
  /** The project root, to find Claude Code's newest transcript when nothing else names one. */
  root: string;
  home?: string;
  /**
   * Reads a transcript (the MCP server and the hooks confine reads to the project, the client's roots and the
   * agents' transcript folders: `confinedReader`). Default: one descriptor, no confinement.
   */
  read?: TranscriptReader;
}

export interface CompressSource {
  kind: "transcript_path" | "messages" | "session" | "newest_claude_code";
  path?: string;
  format: string;
}

/** The input fields that choose the source. */
export interface SourceInput {
  transcriptPath?: string | undefined;
  messages?: Message[] | undefined;
  sessionId?: string | undefined;
  format?: TranscriptFormat | undefined;
}

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

/**
 * Reads a transcript only inside `scope`: the path is checked on its real path, then opened, and the open
 * descriptor's own path and inode are checked again before anything is read from it. More than one hard link is
 * refused. Throws OUTSIDE_ROOTS, NOT_FOUND or BAD_INPUT.
 */
export function confinedReader(scope: ReadScope): TranscriptReader {
  const read = transcriptReader((real) => void allowedPath(real, scope));
  return (path) => read(checkReadable(path, scope));
}

/** The session a transcript belongs to when the caller names none. */
export function sessionIdFor(path: string | undefined, t: Transcript): string {
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

/** The transcript path to read: the named one, the session's recorded one, else Claude Code's newest (with a note). */
function transcriptPath(deps: SourceDeps, input: SourceInput, notes: string[]) {
  if (input.transcriptPath) return { path: input.transcriptPath, kind: "transcript_path" as const };
  const recorded = input.sessionId ? sessionTranscript(deps.db, input.sessionId, deps.projectId) : undefined;
  if (recorded) return { path: recorded, kind: "session" as const };
  // A session id nobody recorded is a typo or another project's: never summarize some other transcript under it.
  if (input.sessionId && !sessionExists(deps.db, input.sessionId, deps.projectId)) {
    const known = recentSessionIds(deps.db, deps.projectId);
    throw new AppError(
      "NOT_FOUND",
      `unknown session_id ${JSON.stringify(input.sessionId)}: ${
        known.length > 0 ? `known sessions (newest first): ${known.join(", ")}` : "no sessions are recorded yet"
      }; pass one of them, or transcript_path`,
    );
  }
  const newest = newestClaudeTranscript(deps.root, deps.home);
  if (!newest) {
    throw new AppError(
      "BAD_INPUT",
      `no transcript to compress: pass transcript_path (or messages), or a session_id whose transcript a hook recorded; no Claude Code transcripts found in ${claudeProjectDir(deps.root, deps.home)}`,
    );
  }
  notes.push(
    `No transcript was named: used the newest Claude Code transcript of this project, ${newest}. With two sessions open it may be the other one; pass transcript_path to be sure.`,
  );
  return { path: newest, kind: "newest_claude_code" as const };
}

/** Reads the source the input names, redacted, with notes on how it was chosen and what could not be read. */
export function readSource(
  deps: SourceDeps,
  input: SourceInput,
): { transcript: Transcript; source: CompressSource; notes: string[] } {
  if (input.messages && input.transcriptPath) {
    throw new AppError("BAD_INPUT", "pass either transcript_path or messages, not both");
  }
  const notes: string[] = [];
  let transcript: Transcript;
  let source: CompressSource;
  if (input.messages) {
    if (input.messages.length === 0)
      throw new AppError("BAD_INPUT", "messages is empty; pass the messages since the last call");
    transcript = parseMessagesValue(input.messages);
    source = { kind: "messages", format: "messages-json" };
  } else {
    const found = transcriptPath(deps, input, notes);
    const read = deps.read ?? transcriptReader();
    let path = found.path;
    transcript = parseTranscriptFile(found.path, input.format, (p) => {
      const r = read(p);
      path = r.path;
      return r;
    });
    source = { kind: found.kind, path: resolve(path), format: transcript.format };
  }
  // Secrets go before anything reads the turns: the summary, probes, kept messages and memory see none.
  transcript = redactTranscript(transcript);
  if (transcript.partial_tail)
    notes.push("The transcript's last line was cut off (still being written); it was left for the next compression.");
  if (transcript.skipped > 0)
    notes.push(
      `${count(transcript.skipped, "unreadable record")} skipped: ${JSON.stringify(transcript.skip_reasons)}.`,
    );
  return { transcript, source, notes };
}
