// Tool `status`: where memcards stores this project, what it holds, which embedder is active.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

import { distillerFor } from "../../memory/background.js";
import { getStatus, renderStatus } from "../../status.js";
import type { ToolDeps } from "../context.js";
import { guard, ok } from "../result.js";

const Input = z.object({}).strict();

/** Registers `status`. */
export function registerStatusTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "status",
    {
      title: "memcards status",
      description:
        "Show memcards' project root, database (path, size, rows per table, schema version) and active embedder. Call it when unsure whether memcards is set up for this project. No arguments.",
      inputSchema: Input,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    () =>
      guard(async () => {
        const app = await deps.app();
        const status = getStatus(app, deps.version);
        const distiller = distillerFor(app);
        const d = { pending: distiller.pending(), ...distiller.stats() };
        // Whether this client lets memcards ask its model (the judge route of get_memory_cards).
        const sampling = Boolean(server.server.getClientCapabilities()?.sampling);
        const note = `client sampling: ${sampling ? "offered (get_memory_cards judges with the client's model; compress_context lets it rewrite intent, state and next steps)" : "not offered (deterministic routes only)"}`;
        const distilling = `background distillation: ${d.pending} running or queued; ${d.done} done (${d.added} unit(s) added), ${d.failed} failed since start`;
        return ok(`${renderStatus(status)}\n${note}\n${distilling}`, {
          distillation: d,
          clientSampling: sampling,
          root: status.root,
          db: status.db.path,
          schemaVersion: status.db.schemaVersion,
          embedder: status.embedder.id,
          embedderMode: status.embedder.mode,
        });
      }, deps.logger),
  );
}
