// Tool `record_outcome`: which cards helped, which file was finally edited; feeds later rankings.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import { OutcomeInput, recordOutcome, someIds } from "../../cards/service.js";
import { servedCard } from "../../storage/cards.js";
import type { ToolDeps } from "../context.js";
import { guard, ok } from "../result.js";

export function registerRecordOutcome(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "record_outcome",
    {
      title: "Report what helped",
      description:
        'After acting on memory cards, report the ids of cards that helped (and any that did not) and the files you finally edited. Later get_memory_cards calls in this project rank those units accordingly. Example: {"helped": ["c51c21dcc8a"], "edited_files": ["src/geometry.py"]}.',
      inputSchema: OutcomeInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guard(async () => {
        const app = await deps.app();
        const r = recordOutcome(
          {
            db: app.db,
            projectId: app.project.id,
            unitKeyOfCard: (id) => servedCard(app.db, app.project.id, id)?.unit_key,
          },
          args,
        );
        const unknown = r.unknown_count
          ? ` ${r.unknown_count} unknown card id(s): ${someIds(r.unknown, r.unknown_count)}.`
          : "";
        return ok(`Recorded ${r.recorded} outcome(s).${unknown}`, {
          recorded: r.recorded,
          unknown: r.unknown,
          unknown_count: r.unknown_count,
        });
      }, deps.logger),
  );
}
