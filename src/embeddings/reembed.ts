// Explicit switch of a database's embedder: rebind (drops old vectors), then embed every stored item again.
import type { App } from "../app.js";
import { AppError } from "../errors.js";
import { bindEmbedder, getEmbedderBinding } from "../storage/meta.js";
import { markAllPending } from "../storage/vectors.js";
import { embedPending } from "./embed-pending.js";
import { createOfflineEmbedder } from "./offline.js";
import type { Embedder } from "./provider.js";
import { chooseEmbedder } from "./select.js";

export interface ReembedResult {
  from: string | undefined;
  to: string;
  items: number;
  ms: number;
}

/** Rebinds the app's database to the target embedder and re-embeds every item; the app uses it from then on. */
export async function reembed(app: App, target: { model: string } | { offline: true }): Promise<ReembedResult> {
  const started = Date.now();
  const from = getEmbedderBinding(app.db)?.id;
  let embedder: Embedder;
  if ("offline" in target) {
    embedder = createOfflineEmbedder();
  } else {
    const choice = chooseEmbedder(target.model, undefined, app.config.modelsDir, app.logger);
    if (choice.embedder.mode !== "model") {
      throw new AppError(
        "EMBEDDER_UNAVAILABLE",
        `model ${target.model} is not in ${app.config.modelsDir}. Run \`memcards models pull ${target.model}\` first.`,
      );
    }
    embedder = choice.embedder;
  }
  bindEmbedder(app.db, { id: embedder.id, dimension: embedder.dimension });
  markAllPending(app.db);
  await app.embedding.embedder.close?.();
  app.embedding = { embedder, vectorsEnabled: true };
  const items = await embedPending(app.db, embedder);
  return { from, to: embedder.id, items, ms: Date.now() - started };
}
