// The run of tool `compress_context` (its schemas are in compress-context.ts), loaded on its first call.
import { compressContext, inBackground } from "../../session/compress.js";
import { renderCompressFooter } from "../../session/report.js";
import type { CompressInput } from "../../transcript/compression/input.js";
import { withModelRoute } from "../../transcript/compression/model-route.js";
import { confinedReader } from "../../transcript/formats/source.js";
import type { ToolRun } from "../tool.js";
import type { Output } from "./compress-context.js";

export const run: ToolRun<typeof CompressInput, typeof Output> = async (args, deps) => {
  const app = await deps.app();
  const scope = { root: app.location.root, roots: await deps.roots() };
  const det = compressContext(
    {
      ...app.scope,
      read: confinedReader(scope),
      distill: inBackground(app.distiller, app.db, deps.logger),
    },
    args,
  );
  const r = await withModelRoute(app.db, det, args.route ?? "auto", deps.clientModel());
  const { probes_failed, ...stats } = r.stats;
  return {
    text: `${r.markdown}\n\n${renderCompressFooter(r)}`,
    data: {
      sessionId: r.session_id,
      source: r.source,
      stats: { ...stats, probes_failed: probes_failed.length },
      notes: r.notes,
      route: r.route.route,
      ...(r.memories ? { memories: r.memories } : {}),
      ...(r.memories_queued ? { memoriesQueued: r.memories_queued } : {}),
    },
  };
};
