// Tool `compress_context`: the anchored, probe-checked summary of the current conversation.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import { distillerFor } from "../../memory/background.js";
import { distill } from "../../memory/distill.js";
import { checkReadable } from "../../project/confine.js";
import { compressContext, CompressInput } from "../../transcript/compress.js";
import { type AskModel, withModelRoute } from "../../transcript/model-route.js";
import { renderCompressFooter } from "../../transcript/report.js";
import type { ToolDeps } from "../context.js";
import { guard, ok } from "../result.js";

/** The client's model, when this client offers sampling (VS Code does; Claude Code and Claude Desktop do not). */
function askOf(server: McpServer): AskModel | undefined {
  if (!server.server.getClientCapabilities()?.sampling) return undefined;
  return async (prompt, { maxTokens, timeoutMs }) => {
    const r = await server.server.createMessage(
      { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens },
      { timeout: timeoutMs },
    );
    return r.content.type === "text" ? r.content.text : "";
  };
}

export function registerCompressContext(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "compress_context",
    {
      title: "Compress the conversation",
      description:
        'Summarize this conversation into anchored sections (intent, user constraints verbatim, files modified, decisions, completed, failures, metrics, current state, blockers, next steps) and keep the last messages verbatim. memcards reads the transcript itself: pass transcript_path (Claude Code/Codex JSONL, SWE-agent .traj, SpecStory or aider markdown, JSON messages) — never paste the conversation. Merges with this session\'s previous summary and reads only newer turns. Continue from the returned markdown. Example: {"transcript_path": "~/.claude/projects/-home-me-app/3f2a.jsonl"}.',
      inputSchema: CompressInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guard(async () => {
        const app = await deps.app();
        const scope = { root: app.location.root, roots: await deps.roots() };
        const det = compressContext(
          {
            db: app.db,
            projectId: app.project.id,
            root: app.location.root,
            readable: (path) => checkReadable(path, scope),
            distill: (job) => {
              try {
                distillerFor(app).enqueue(job);
                return undefined;
              } catch (err) {
                deps.logger.warn(`background distillation unavailable (${(err as Error).message}); distilling inline`);
                return distill(app.db, job.projectId, job.sessionId, job.span, job.sections);
              }
            },
          },
          args,
        );
        const r = await withModelRoute(app.db, det, args.route ?? "auto", askOf(server));
        const { probes_failed, ...stats } = r.stats;
        return ok(`${r.markdown}\n\n${renderCompressFooter(r)}`, {
          session_id: r.session_id,
          source: r.source,
          stats: { ...stats, probes_failed: probes_failed.length },
          notes: r.notes,
          route: r.route.route,
          ...(r.memories ? { memories: r.memories } : {}),
          ...(r.memories_queued ? { memories_queued: r.memories_queued } : {}),
        });
      }, deps.logger),
  );
}
