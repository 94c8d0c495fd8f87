// Resource template `memcards://cards/{id}`: a served card with its utility components, source and task.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";

import { readServedCard, servedCardIdsLike } from "../../cards/served.js";
import type { ToolDeps } from "../context.js";
import { guardRead, templateId } from "./read.js";

export function registerCardResource(server: McpServer, deps: ToolDeps): void {
  server.registerResource(
    "card",
    new ResourceTemplate("memcards://cards/{id}", {
      list: undefined,
      complete: {
        id: async (value) => servedCardIdsLike((await deps.app()).scope, value),
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
        const text = readServedCard((await deps.app()).scope, id);
        return { contents: [{ uri: uri.href, mimeType: "application/json", text }] };
      }, deps.logger),
  );
}
