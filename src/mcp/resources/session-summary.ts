// Resource template `memcards://sessions/{id}/summary`: the latest anchored summary of a session.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";

import type { ToolDeps } from "../context.js";
import { guardRead, noneIfMissing, templateId } from "./read.js";

export function registerSessionSummary(server: McpServer, deps: ToolDeps): void {
  // The summaries' store and renderer load on the first read: listing capabilities loads no domain code.
  const summaries = () => import("../../transcript/compression/summaries.js");
  const sessions = async () => {
    const [app, { getSummary }] = await Promise.all([deps.app(), summaries()]);
    return noneIfMissing(() => getSummary(app.db, app.project.id).sessions, []);
  };
  server.registerResource(
    "session-summary",
    new ResourceTemplate("memcards://sessions/{id}/summary", {
      complete: {
        id: async (value) => (await sessions()).map((x) => x.id).filter((id) => id.startsWith(value)),
      },
      list: () =>
        guardRead(
          async () => ({
            resources: (await sessions()).map((x) => ({
              uri: `memcards://sessions/${encodeURIComponent(x.id)}/summary`,
              name: `summary of ${x.id}`,
              mimeType: "text/markdown",
            })),
          }),
          deps.logger,
        ),
    }),
    { title: "Session summary", description: "The latest anchored summary of a session.", mimeType: "text/markdown" },
    (uri, vars) =>
      guardRead(async () => {
        const id = templateId(vars.id, "session");
        const [app, { getSummary }, { renderStoredSummary }] = await Promise.all([
          deps.app(),
          summaries(),
          import("../../transcript/rendering/report.js"),
        ]);
        const s = getSummary(app.db, app.project.id, id);
        return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: renderStoredSummary(s, false) }] };
      }, deps.logger),
  );
}
