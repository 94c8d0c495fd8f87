// The run of tool `status` (its schemas are in status.ts), loaded on its first call.
import { getStatus, renderStatus } from "../../status.js";
import { count } from "../../text/plural.js";
import type { ToolRun } from "../tool.js";
import type { Input, Output } from "./status.js";

export const run: ToolRun<typeof Input, typeof Output> = async (_args, deps) => {
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
};
