// Resource template `memcards://cards/{id}`: a served card with its utility components, source and task.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";

import { AppError } from "../../errors.js";
import { servedCard, servedCardIds } from "../../storage/cards.js";
import type { ToolDeps } from "../context.js";
import { guardRead, templateId } from "./read.js";

export function registerCardResource(server: McpServer, deps: ToolDeps): void {
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
    (uri, vars) =>
      guardRead(async () => {
        const id = templateId(vars.id, "card");
        const app = await deps.app();
        const row = servedCard(app.db, app.project.id, id);
        if (!row) throw new AppError("NOT_FOUND", `no card ${id} was served in this project`);
        const text = JSON.stringify({ ...row.card, task: row.task, served_at: row.served_at }, null, 2);
        return { contents: [{ uri: uri.href, mimeType: "application/json", text }] };
      }, deps.logger),
  );
}
