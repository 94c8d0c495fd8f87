// Resource template `memcards://cards/{id}`: a served card with its utility components, source and task.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";

import type { ToolDeps } from "../context.js";
import { guardRead, templateId } from "./read.js";

/** The served cards' store, loaded on the first read: listing capabilities loads no domain code. */
const served = () => import("../../cards/served.js");

export function registerCardResource(server: McpServer, deps: ToolDeps): void {
  server.registerResource(
    "card",
    new ResourceTemplate("memcards://cards/{id}", {
      list: undefined,
      complete: {
        id: async (value) => (await served()).servedCardIdsLike((await deps.app()).scope, value),
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
        const text = (await served()).readServedCard((await deps.app()).scope, id);
        return { contents: [{ uri: uri.href, mimeType: "application/json", text }] };
      }, deps.logger),
  );
}
