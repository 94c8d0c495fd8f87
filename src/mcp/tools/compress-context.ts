// Tool `compress_context`: the anchored, probe-checked summary of the current conversation.
import { z } from "zod";

import { CompressInput } from "../../transcript/compression/input.js";
import { BudgetChoice } from "../../transcript/rendering/budget.js";
import { defineTool } from "../tool.js";

const count = z.number();

export const Output = z.object({
  sessionId: z.string(),
  source: z.object({ kind: z.string(), path: z.string().optional(), format: z.string() }),
  stats: z.object({
    tokens_before: count,
    tokens_after: count,
    ratio: count,
    tokens_total_before: count,
    tokens_total_after: count,
    probe_score_before: count,
    probe_score: count,
    probes_total: count,
    /** How many probes failed before re-insertion. */
    probes_failed: count,
    turns_total: count,
    turns_summarized: count,
    kept_recent: count,
    skipped: count,
    compression: count,
    /** The budget and how it was chosen: by the caller, or by default from what the session holds (`basis`: the
     * counts and costs the default was computed from, as `BudgetChoice` in transcript/rendering/budget.ts names them). */
    budget: BudgetChoice.extend({ basis: z.record(z.string(), count) }),
    ms: count,
  }),
  notes: z.array(z.string()),
  route: z.enum(["model", "deterministic"]),
  /** Units distilled inline (when no background worker could take the span). */
  memories: z
    .object({
      added: count,
      merged: count,
      superseded: count,
      conflicts: count,
      dropped: count,
      archived: count,
      warm: count,
      cold: count,
    })
    .optional(),
  /** Turns handed to background distillation. */
  memoriesQueued: count.optional(),
});

export const compressContextTool = defineTool({
  name: "compress_context",
  title: "Compress the conversation",
  description:
    'Summarize this conversation into anchored sections (intent, user constraints verbatim, files, decisions, failures, state, next steps…) plus the last messages, within the budget. memcards reads the transcript itself: pass transcript_path (its format is detected) — never paste the conversation. Merges with this session\'s previous summary and reads only newer turns. Continue from the returned markdown. Example: {"transcript_path": "~/.claude/projects/-home-me-app/3f2a.jsonl"}.',
  input: CompressInput,
  output: Output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  load: async () => (await import("./compress-context.run.js")).run,
});
