// Chooses the embedder for a database: the one it is bound to, else a cached model, else the offline hasher.
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { EmbedderMode } from "../vocab.js";
import { createOfflineEmbedder } from "./offline.js";
import type { Embedder } from "./provider.js";
import { createTransformersEmbedder, DEFAULT_MODEL, isModelCached } from "./transformers.js";

/** The embedder a database is bound to, as the store records it. */
type EmbedderBinding = Pick<Embedder, "id" | "dimension">;

export interface EmbedderChoice {
  embedder: Embedder;
  /** False when the database is bound to a model that is not available here: vectors are then not used. */
  vectorsEnabled: boolean;
  /** One sentence for stderr and `status` when the choice is not the best one possible. */
  note?: string;
}

const MODEL_PREFIX = "transformers:";

/** Reads a cached model's hidden size from its config.json, so it can be bound without loading it. */
function cachedModelDimension(model: string, modelsDir: string): number | undefined {
  try {
    const cfg = JSON.parse(readFileSync(join(modelsDir, model, "config.json"), "utf8")) as Record<string, unknown>;
    const dim = cfg.hidden_size ?? cfg.d_model ?? cfg.dim;
    return typeof dim === "number" && dim > 0 ? dim : undefined;
  } catch {
    return undefined;
  }
}

/** An embedder whose model is loaded on first use, so starting the server never waits for it. */
export function lazyModelEmbedder(model: string, modelsDir: string, dimension: number, logger: Logger): Embedder {
  let loading: Promise<Embedder> | undefined;
  const load = () => (loading ??= createTransformersEmbedder({ model, cacheDir: modelsDir, logger }));
  return {
    id: MODEL_PREFIX + model,
    dimension,
    mode: "model" satisfies EmbedderMode,
    embed: async (texts) => (await load()).embed(texts),
    close: async () => {
      if (loading) await (await loading).close?.();
    },
  };
}

function modelEmbedder(model: string, modelsDir: string, logger: Logger): Embedder | undefined {
  if (!isModelCached(model, modelsDir)) return undefined;
  const dim = cachedModelDimension(model, modelsDir);
  return dim ? lazyModelEmbedder(model, modelsDir, dim, logger) : undefined;
}

/**
 * Picks the embedder. A bound database keeps its embedder (switching is an explicit re-embed); an unbound one
 * takes the wanted model if it is cached, else the offline embedder. Nothing is downloaded here.
 */
export function chooseEmbedder(
  want: string,
  binding: EmbedderBinding | undefined,
  modelsDir: string,
  logger: Logger,
): EmbedderChoice {
  const offline = createOfflineEmbedder();
  const pullHint = (m: string) =>
    `run \`memcards models pull ${m}\` once with a network, then \`memcards reembed --model ${m}\``;
  if (binding) {
    if (binding.id === offline.id) {
      return {
        embedder: offline,
        vectorsEnabled: true,
        note: `using the built-in offline embedder (${offline.id}); for a sentence model, ${pullHint(want === "auto" || want === "offline" ? DEFAULT_MODEL : want)}`,
      };
    }
    if (binding.id.startsWith(MODEL_PREFIX)) {
      const model = binding.id.slice(MODEL_PREFIX.length);
      const emb = modelEmbedder(model, modelsDir, logger);
      if (emb && emb.dimension === binding.dimension) return { embedder: emb, vectorsEnabled: true };
      return {
        embedder: offline,
        vectorsEnabled: false,
        note: `this database is bound to ${binding.id}, which is not in ${modelsDir}; vector search is off until you run \`memcards models pull ${model}\` or \`memcards reembed --offline\``,
      };
    }
    return {
      embedder: offline,
      vectorsEnabled: false,
      note: `this database is bound to an unknown embedder ${binding.id}; vector search is off until \`memcards reembed\``,
    };
  }
  if (want === "offline") return { embedder: offline, vectorsEnabled: true };
  const model = want === "auto" ? DEFAULT_MODEL : want;
  const emb = modelEmbedder(model, modelsDir, logger);
  if (emb) return { embedder: emb, vectorsEnabled: true };
  return {
    embedder: offline,
    vectorsEnabled: true,
    note: `no embedding model cached (${model}); using the built-in offline embedder. For better recall on prose and memories, ${pullHint(model)}`,
  };
}

/** The embedder a database is switched to (`memcards reembed`): the offline one, or a cached model. */
export function embedderFor(
  target: { model: string } | { offline: true },
  modelsDir: string,
  logger: Logger,
): Embedder {
  if ("offline" in target) return createOfflineEmbedder();
  const choice = chooseEmbedder(target.model, undefined, modelsDir, logger);
  if (choice.embedder.mode !== "model") {
    throw new AppError(
      "EMBEDDER_UNAVAILABLE",
      `model ${target.model} is not in ${modelsDir}. Run \`memcards models pull ${target.model}\` first.`,
    );
  }
  return choice.embedder;
}
