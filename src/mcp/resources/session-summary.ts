// Resource template `memcards://sessions/{id}/summary`: the latest anchored summary of a session.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";

import { getSummary } from "../../transcript/compression/summaries.js";
import { renderStoredSummary } from "../../transcript/rendering/report.js";
import type { ToolDeps } from "../context.js";
import { guardRead, noneIfMissing, templateId } from "./read.js";

export function registerSessionSummary(server: McpServer, deps: ToolDeps): void {
  const sessions = async () => {
    const app = await deps.app();
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
        const app = await deps.app();
        const s = getSummary(app.db, app.project.id, id);
        return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: renderStoredSummary(s, false) }] };
      }, deps.logger),
  );
}
