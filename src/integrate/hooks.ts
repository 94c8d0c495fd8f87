// Claude Code hooks: `memcards hook <event>` reads the hook's JSON on stdin. It never blocks or fails the agent:
// heavy work goes to a detached process, and any error exits 0 with nothing printed, logged to .memcards/hooks.log.
import { spawn } from "node:child_process";
import { lstatSync, unlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";

import { z } from "zod";

import type { App } from "../app.js";
import { allowedPath, checkReadable } from "../project/confine.js";
import { checkStoreFiles, createNewFile } from "../project/files.js";
import { hasIndexedFiles } from "../storage/graph/counts.js";
import { touchSession } from "../storage/projects.js";
import { summarizedSessions } from "../storage/summaries.js";
import { count } from "../text/plural.js";
import { redact } from "../text/redact.js";
import { confinedReader } from "../transcript/formats/source.js";

/** Cards injected by the optional prompt and pre-edit hooks stay small. */
export const CARD_HOOK_BUDGET = 400;

/** Claude Code replaces larger SessionStart output with a short preview. */
export const MAX_HOOK_OUTPUT = 9500;

export const HookInput = z
  .object({
    session_id: z.string().optional(),
    transcript_path: z.string().optional(),
    cwd: z.string().optional(),
    hook_event_name: z.string().optional(),
    source: z.string().optional(),
    trigger: z.string().optional(),
    tool_name: z.string().optional(),
    tool_input: z.record(z.string(), z.unknown()).optional(),
    prompt: z.string().optional(),
  })
  .passthrough();
export type HookInput = z.infer<typeof HookInput>;

export const HookEvent = z.enum([
  "PreCompact",
  "SessionStart",
  "SessionEnd",
  "PostToolUse",
  "UserPromptSubmit",
  "PreToolUse",
]);
export type HookEvent = z.infer<typeof HookEvent>;

export interface HookContext {
  app: App;
  /** The CLI entry (dist/cli.js) for detached follow-up work. */
  cli: string;
  /** Starts a detached process; tests pass a recorder. */
  spawnDetached?: (args: string[]) => void;
  /** The home folder whose transcript folders hooks may read (default: the user's). */
  home?: string;
}

export interface HookResult {
  stdout: string;
  log: string;
}

function detached(cli: string): (args: string[]) => void {
  return (args) => {
    const child = spawn(process.execPath, [cli, ...args], { detached: true, stdio: "ignore" });
    child.unref();
  };
}

/** Sections in order of what a fresh context needs first, cut to the hook output limit. */
function cap(text: string, max = MAX_HOOK_OUTPUT): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 60);
  return `${cut.slice(0, cut.lastIndexOf("\n"))}\n… (cut; the full summary: get_summary)`;
}

const BRIEF_ORDER = [
  "Next Steps",
  "User Constraints",
  "Current State",
  "Blockers / Open Questions",
  "Failures",
  "Files Modified",
  "Decisions Made",
  "Completed",
  "Session Intent",
  "Metrics",
];

/** Reorders a summary's sections so the most important come first (they survive the cap). */
export function briefOf(markdown: string): string {
  const parts = markdown.split(/\n(?=## )/);
  const title = (p: string) => /^## (.+)$/m.exec(p)?.[1] ?? "";
  const rank = (p: string) => {
    const i = BRIEF_ORDER.indexOf(title(p));
    return i < 0 ? BRIEF_ORDER.length : i;
  };
  return parts
    .filter((p) => !/_None recorded\._\s*$/.test(p.trim()))
    .sort((a, b) => rank(a) - rank(b))
    .join("\n\n");
}

/**
 * Takes the re-index lock: false while a lock younger than a minute is held. A stale lock is removed (a link is
 * removed, never followed) and the new one created only where nothing is; a lock that is a link, or another
 * user's, is UNSAFE_FILE.
 */
function takeLock(lock: string): boolean {
  let st;
  try {
    st = lstatSync(lock);
  } catch {
    st = undefined;
  }
  if (st) {
    checkStoreFiles(lock, dirname(lock), false);
    if (Date.now() - st.mtimeMs < 60_000) return false;
    unlinkSync(lock);
  }
  return createNewFile(lock, String(Date.now()));
}

/** Runs one hook; what it prints for the model is redacted on the way out. */
export async function runHook(event: HookEvent, input: HookInput, ctx: HookContext): Promise<HookResult> {
  const r = await hookResult(event, input, ctx);
  return r.stdout ? { ...r, stdout: redact(r.stdout) } : r;
}

async function hookResult(event: HookEvent, input: HookInput, ctx: HookContext): Promise<HookResult> {
  const { app } = ctx;
  const sessionId = input.session_id;
  // A hook reads only inside the project and the agents' transcript folders, like the MCP tools.
  const scope = { root: app.location.root, roots: [], home: ctx.home };
  let transcript: string | undefined;
  let refused: unknown;
  try {
    if (input.transcript_path) transcript = allowedPath(input.transcript_path, scope).path;
  } catch (err) {
    refused = err; // not recorded; fatal only to the hooks that read the transcript
  }
  const spawnIt = ctx.spawnDetached ?? detached(ctx.cli);
  if (sessionId)
    touchSession(app.db, app.project.id, sessionId, {
      client: "claude-code",
      ...(transcript ? { transcriptPath: transcript } : {}),
    });
  switch (event) {
    case "PreCompact": {
      if (refused) throw refused;
      if (!transcript) return { stdout: "", log: "no transcript_path" };
      // Store the anchored summary before the client's own compaction; stdout is not shown to the model.
      // Each event loads only the modules it uses: a hook runs in a new process on every prompt and edit.
      const { compressContext } = await import("../session/compress.js");
      const r = compressContext(
        { ...app.scope, read: confinedReader(scope) },
        { transcriptPath: transcript, ...(sessionId ? { sessionId: sessionId } : {}) },
      );
      return {
        stdout: "",
        log: `compressed ${r.stats.turns_summarized} turns, ${r.stats.tokens_before} → ${r.stats.tokens_after} tokens, probes ${r.stats.probe_score_before}`,
      };
    }
    case "SessionStart": {
      if (input.source === "compact" && sessionId) {
        const { getSummary } = await import("../transcript/compression/summaries.js");
        try {
          const s = getSummary(app.db, app.project.id, sessionId);
          const out = cap(
            `# memcards: this session before compaction (compression #${s.compression})\n\n${briefOf(s.markdown)}`,
          );
          return { stdout: out, log: `injected the session summary, ${out.length} chars` };
        } catch {
          return { stdout: "", log: "no summary for this session" };
        }
      }
      // startup, resume, clear: the project brief (recall): the last session's next steps, constraints,
      // failures and metrics that the work at hand most likely needs.
      const { recall } = await import("../memory/service.js");
      const brief = recall(app.scope, { budgetTokens: 2000 });
      if (brief.units.length === 0 && !summarizedSessions(app.db, app.project.id, 1).some((x) => x.id !== sessionId)) {
        return { stdout: "", log: "no memory yet" };
      }
      const out = cap(`# memcards: what this project's memory says the work needs\n\n${brief.markdown}`);
      return { stdout: out, log: `injected the project brief (${brief.units.length} units), ${out.length} chars` };
    }
    case "SessionEnd": {
      if (refused) throw refused;
      if (!transcript) return { stdout: "", log: "no transcript_path" };
      checkReadable(transcript, scope);
      spawnIt([
        "distill",
        transcript,
        "--root",
        app.location.root,
        "--log-level",
        "silent",
        "--confine",
        ...(sessionId ? ["--session", sessionId] : []),
      ]);
      return { stdout: "", log: "queued distillation of the transcript" };
    }
    case "UserPromptSubmit":
    case "PreToolUse": {
      // Optional (off by default): the top cards for the prompt, or for the file about to be edited.
      const file = input.tool_input?.file_path;
      const task = event === "UserPromptSubmit" ? (input.prompt ?? "") : typeof file === "string" ? `edit ${file}` : "";
      if (!task.trim() || !hasIndexedFiles(app.db)) return { stdout: "", log: "no task or no graph" };
      const [{ getMemoryCards, renderCards }, { createRanker }] = await Promise.all([
        import("../cards/service.js"),
        import("../retrieval/rank.js"),
      ]);
      // A hook is a new process per prompt: it ranks with the index's own channels (FTS, symbols, vectors,
      // anchors) and never reads every file of the repository for a whole-file BM25 index, as the server does once.
      const { embedder, vectorsEnabled } = app.embedding;
      const ranker = createRanker(app.db, { embedder, vectorsEnabled });
      const r = await getMemoryCards(
        { ...app.scope, ranker },
        {
          task,
          budgetTokens: CARD_HOOK_BUDGET,
          mode: "pre_budget",
          ...(typeof file === "string" ? { files: [relative(app.location.root, file)] } : {}),
          ...(sessionId ? { sessionId: sessionId } : {}),
        },
      );
      if (r.cards.length === 0) return { stdout: "", log: "no card" };
      const out = cap(
        `# memcards: cards for ${event === "UserPromptSubmit" ? "this prompt" : relative(app.location.root, String(file))}\n\n${renderCards(r)}`,
        4000,
      );
      return { stdout: out, log: `injected ${count(r.cards.length, "card")}, ${out.length} chars` };
    }
    case "PostToolUse": {
      const file = input.tool_input?.file_path ?? input.tool_input?.notebook_path;
      if (typeof file !== "string") return { stdout: "", log: "no file in tool_input" };
      // One re-index at a time: a lock younger than a minute means one is running and will see this change.
      const lock = join(dirname(app.dbPath), "reindex.lock");
      if (!takeLock(lock)) return { stdout: "", log: `re-index already queued (${file})` };
      spawnIt(["index", app.location.root, "--lexical-only", "--log-level", "silent", "--release-lock", lock]);
      return { stdout: "", log: `queued re-index for ${file}` };
    }
  }
}
