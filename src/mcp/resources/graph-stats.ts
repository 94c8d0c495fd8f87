// Resource `memcards://graph/stats`: nodes and edges per type, indexed files, build state and the last run.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import type { ToolDeps } from "../context.js";
import { guardRead } from "./read.js";

export function registerGraphStats(server: McpServer, deps: ToolDeps): void {
  server.registerResource(
    "graph-stats",
    "memcards://graph/stats",
    {
      title: "Context graph statistics",
      description: "Nodes and edges per type, indexed files, build state and the last run.",
      mimeType: "application/json",
    },
    (uri) =>
      guardRead(async () => {
        const [app, { graphStats }] = await Promise.all([deps.app(), import("../../graph/stats.js")]);
        const svc = app.graph;
        const stats = graphStats(app.db, svc.watcher()?.active ?? false, svc.host.current()?.id);
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(stats, null, 2) }] };
      }, deps.logger),
  );
}
