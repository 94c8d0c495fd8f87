// Tool `status`: where memcards stores this project, what it holds, which embedder is active.
import { z } from "zod";

import { getStatus, renderStatus, Status } from "../../status.js";
import { count } from "../../text/plural.js";
import { defineTool } from "../tool.js";

const Output = z.object({
  root: z.string(),
  db: z.string(),
  schemaVersion: z.number(),
  embedder: z.string(),
  embedderMode: Status.shape.embedder.shape.mode,
  /** Whether this client lets memcards ask its model (the judge route of get_memory_cards). */
  clientSampling: z.boolean(),
  distillation: z.object({ pending: z.number(), done: z.number(), failed: z.number(), added: z.number() }),
});

export const statusTool = defineTool({
  name: "status",
  title: "memcards status",
  description:
    "Show memcards' project root, database (path, size, rows per table, schema version) and active embedder. Call it when unsure whether memcards is set up for this project. No arguments.",
  input: z.object({}).strict(),
  output: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_args, deps) {
    const app = await deps.app();
    const status = getStatus(app, deps.version);
    const distiller = app.distiller;
    const d = { pending: distiller.pending(), ...distiller.stats() };
    const sampling = deps.clientModel() !== undefined;
    const note = `client sampling: ${sampling ? "offered (get_memory_cards judges with the client's model; compress_context lets it rewrite intent, state and next steps)" : "not offered (deterministic routes only)"}`;
    const distilling = `background distillation: ${d.pending} running or queued; ${d.done} done (${count(d.added, "unit")} added), ${d.failed} failed since start`;
    return {
      text: `${renderStatus(status)}\n${note}\n${distilling}`,
      data: {
        root: status.root,
        db: status.db.path,
        schemaVersion: status.db.schemaVersion,
        embedder: status.embedder.id,
        embedderMode: status.embedder.mode,
        clientSampling: sampling,
        distillation: d,
      },
    };
  },
});
