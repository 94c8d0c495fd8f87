// Tool `get_memory_cards` and resource `memcards://cards/{id}`: decision-aware cards before an edit.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";

import { cardsDeps } from "../../cards/deps.js";
import { CardsInput, getMemoryCards, JUDGE_TIMEOUT_MS, renderCards } from "../../cards/service.js";
import { AppError } from "../../errors.js";
import type { JudgeFn } from "../../scoring/judge.js";
import { servedCard, servedCardIds } from "../../storage/cards.js";
import type { ToolDeps } from "../context.js";
import { guard, ok } from "../result.js";

/** The judge route, when this client offers sampling (VS Code does; Claude Code and Claude Desktop do not). */
function judgeOf(server: McpServer): { judge?: JudgeFn } {
  if (!server.server.getClientCapabilities()?.sampling) return {};
  return {
    judge: async (prompt, signal) => {
      const r = await server.server.createMessage(
        { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 400 },
        { signal, timeout: JUDGE_TIMEOUT_MS },
      );
      return r.content.type === "text" ? r.content.text : "";
    },
  };
}

export function registerGetMemoryCards(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "get_memory_cards",
    {
      title: "Memory cards for the next edit",
      description:
        'Before editing, pass the task (issue text, instruction, stack trace) and optionally the files you are looking at. Returns a few typed cards — the file and symbol to edit, the test covering it, the rule governing the path, the session\'s user constraints and past failures — ranked by their expected effect on your next action and packed under budget_tokens. Needs the context graph (build_context_graph). Report what helped with record_outcome. Example: {"task": "TypeError in parse_args when --verbose is set", "files": ["cli/args.py"]}.',
      inputSchema: CardsInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guard(async () => {
        const app = await deps.app();
        const r = await getMemoryCards({ ...cardsDeps(app), ...judgeOf(server) }, args);
        return ok(renderCards(r), {
          cards: r.cards.map((c) => ({ id: c.id, kind: c.kind, scope: c.scope, utility: c.utility })),
          tokens: r.tokens,
          budget: r.budget,
          mode: r.mode,
          route: r.route,
          judged: r.judged,
          ...(args.verbose
            ? {
                selected: r.selected,
                audit: r.audit,
                ranking: r.ranking,
                components: r.cards.map((c) => ({ id: c.id, ...c.components })),
                skipped: r.skipped,
              }
            : {}),
        });
      }, deps.logger),
  );

  server.registerResource(
    "card",
    new ResourceTemplate("memcards://cards/{id}", {
      list: undefined,
      complete: {
        id: async (value) => {
          const app = await deps.app();
          return servedCardIds(app.db, app.project.id, value);
        },
      },
    }),
    {
      title: "Memory card",
      description: "A served card with its utility components, source and the task it was served for.",
      mimeType: "application/json",
    },
    async (uri, vars) => {
      const app = await deps.app();
      const row = servedCard(app.db, app.project.id, String(vars.id));
      if (!row) throw new AppError("NOT_FOUND", `no card ${String(vars.id)} was served in this project`);
      const card = JSON.parse(row.card) as Record<string, unknown>;
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: "application/json",
            text: JSON.stringify({ ...card, task: row.task, served_at: row.served_at }, null, 2),
          },
        ],
      };
    },
  );
}
