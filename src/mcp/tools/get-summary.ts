// Tool `get_summary` and resource `memcards://sessions/{id}/summary`: the latest stored summary.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

import { MAX_ID_CHARS } from "../../limits.js";
import { renderStoredSummary } from "../../transcript/report.js";
import { getSummary } from "../../transcript/summaries.js";
import type { ToolDeps } from "../context.js";
import { guard, ok } from "../result.js";

const Input = z
  .object({
    session_id: z
      .string()
      .min(1)
      .max(MAX_ID_CHARS)
      .optional()
      .describe("the session (default: the most recently compressed one)"),
    full: z.boolean().default(false).describe("list every stored item, not just what fit the budget"),
  })
  .strict();

export function registerGetSummary(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "get_summary",
    {
      title: "Latest session summary",
      description:
        'Return the latest anchored summary stored by compress_context for a session (default: the most recently compressed session of this project). full: true lists every stored item of every section. Example: {"full": true}.',
      inputSchema: Input,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guard(async () => {
        const app = await deps.app();
        const s = getSummary(app.db, app.project.id, args.session_id);
        return ok(renderStoredSummary(s, args.full), {
          session_id: s.session_id,
          compression: s.compression,
          created_at: s.created_at,
          tokens_after: s.stats.tokens_after,
          probe_score: s.stats.probe_score,
        });
      }, deps.logger),
  );

  server.registerResource(
    "session-summary",
    new ResourceTemplate("memcards://sessions/{id}/summary", {
      complete: {
        id: async (value) => {
          const app = await deps.app();
          try {
            return getSummary(app.db, app.project.id)
              .sessions.map((x) => x.id)
              .filter((id) => id.startsWith(value));
          } catch {
            return [];
          }
        },
      },
      list: async () => {
        const app = await deps.app();
        try {
          const s = getSummary(app.db, app.project.id);
          return {
            resources: s.sessions.map((x) => ({
              uri: `memcards://sessions/${encodeURIComponent(x.id)}/summary`,
              name: `summary of ${x.id}`,
              mimeType: "text/markdown",
            })),
          };
        } catch {
          return { resources: [] };
        }
      },
    }),
    { title: "Session summary", description: "The latest anchored summary of a session.", mimeType: "text/markdown" },
    async (uri, vars) => {
      const app = await deps.app();
      const id = decodeURIComponent(String(vars.id));
      const s = getSummary(app.db, app.project.id, id);
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: renderStoredSummary(s, false) }] };
    },
  );
}
