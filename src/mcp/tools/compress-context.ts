// Tool `compress_context`: the anchored, probe-checked summary of the current conversation.
import { z } from "zod";

import { compressContext, inBackground } from "../../session/compress.js";
import { renderCompressFooter } from "../../session/report.js";
import { CompressInput } from "../../transcript/compression/compress.js";
import { withModelRoute } from "../../transcript/compression/model-route.js";
import { confinedReader } from "../../transcript/formats/source.js";
import { BudgetChoice } from "../../transcript/rendering/budget.js";
import { defineTool } from "../tool.js";

const count = z.number();

const Output = z.object({
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
    'Summarize this conversation into anchored sections (intent, user constraints verbatim, files, decisions, failures, state, next steps…) plus the last messages, within the budget. memcards reads the transcript itself: pass transcript_path (the transcript file; format detected) — never paste the conversation. Merges with this session\'s previous summary and reads only newer turns. Continue from the returned markdown. Example: {"transcript_path": "~/.claude/projects/-home-me-app/3f2a.jsonl"}.',
  input: CompressInput,
  output: Output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, deps) {
    const app = await deps.app();
    const scope = { root: app.location.root, roots: await deps.roots() };
    const det = compressContext(
      {
        ...app.scope,
        read: confinedReader(scope),
        distill: inBackground(app.distiller, app.db, deps.logger),
      },
      args,
    );
    const r = await withModelRoute(app.db, det, args.route ?? "auto", deps.clientModel());
    const { probes_failed, ...stats } = r.stats;
    return {
      text: `${r.markdown}\n\n${renderCompressFooter(r)}`,
      data: {
        sessionId: r.session_id,
        source: r.source,
        stats: { ...stats, probes_failed: probes_failed.length },
        notes: r.notes,
        route: r.route.route,
        ...(r.memories ? { memories: r.memories } : {}),
        ...(r.memories_queued ? { memoriesQueued: r.memories_queued } : {}),
      },
    };
  },
});
