// Resource `memcards://project/brief`: what memory says the next session needs (the recall tool's default).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import type { ToolDeps } from "../context.js";
import { guardRead } from "./read.js";

export function registerProjectBrief(server: McpServer, deps: ToolDeps): void {
  server.registerResource(
    "project-brief",
    "memcards://project/brief",
    {
      title: "Project brief",
      description: "What memory says the next session needs (the recall tool's default).",
      mimeType: "text/markdown",
    },
    (uri) =>
      guardRead(async () => {
        const [app, { recall }] = await Promise.all([deps.app(), import("../../memory/service.js")]);
        const r = recall(app.scope);
        return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: r.markdown }] };
      }, deps.logger),
  );
}
