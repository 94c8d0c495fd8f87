// The sentence-model embedder: transformers.js (ONNX) over a model on disk. Never downloads; `memcards models pull` does.
import { existsSync } from "node:fs";
import { join } from "node:path";

import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Embedder } from "./provider.js";

/** A small sentence model (384-d, ~23 MB quantized) that `memcards models pull` fetches by default. */
export const DEFAULT_MODEL = "Xenova/all-MiniLM-L6-v2";

/** Texts are cut to this many characters before tokenization: the models read 256–512 tokens anyway. */
const MAX_CHARS = 2_000;
const BATCH = 16;

/** The ONNX file used for a model directory: full precision first, then the quantized one. */
export function modelFile(model: string, cacheDir: string): string | undefined {
  for (const name of ["model.onnx", "model_quantized.onnx"]) {
    const p = join(cacheDir, model, "onnx", name);
    if (existsSync(p)) return name;
  }
  return undefined;
}

/** True when `model` has its config, tokenizer and ONNX weights under `cacheDir`. */
export function isModelCached(model: string, cacheDir: string): boolean {
  const dir = join(cacheDir, model);
  return (
    existsSync(join(dir, "config.json")) && existsSync(join(dir, "tokenizer.json")) && !!modelFile(model, cacheDir)
  );
}

export interface TransformersOptions {
  model: string;
  cacheDir: string;
  logger: Logger;
}

type Transformers = typeof import("@huggingface/transformers");

/** Loads transformers.js with remote access off; kept in one place so nothing else touches its global env. */
export async function loadTransformers(cacheDir: string, allowRemote: boolean): Promise<Transformers> {
  let t: Transformers;
  try {
    t = await import("@huggingface/transformers");
  } catch (err) {
    throw new AppError("EMBEDDER_UNAVAILABLE", `transformers.js does not load: ${(err as Error).message}`, {
      cause: err,
    });
  }
  t.env.allowRemoteModels = allowRemote;
  t.env.allowLocalModels = true;
  t.env.localModelPath = cacheDir.endsWith("/") ? cacheDir : cacheDir + "/";
  t.env.cacheDir = cacheDir;
  t.env.useFSCache = true;
  return t;
}

/**
 * Creates an embedder over a cached model: mean pooling over the last hidden state, L2-normalized.
 * Fails with EMBEDDER_UNAVAILABLE (and the command that fixes it) when the model is not on disk.
 */
export async function createTransformersEmbedder(opts: TransformersOptions): Promise<Embedder> {
  const { model, cacheDir, logger } = opts;
  const file = modelFile(model, cacheDir);
  if (!isModelCached(model, cacheDir) || !file) {
    throw new AppError(
      "EMBEDDER_UNAVAILABLE",
      `model ${model} is not in ${cacheDir}; run \`memcards models pull ${model}\` once with a network`,
    );
  }
  const t = await loadTransformers(cacheDir, false);
  const started = Date.now();
  let extractor: Awaited<ReturnType<typeof t.pipeline<"feature-extraction">>>;
  try {
    extractor = await t.pipeline("feature-extraction", model, {
      dtype: file === "model.onnx" ? "fp32" : "q8",
      local_files_only: true,
    });
  } catch (err) {
    throw new AppError(
      "EMBEDDER_UNAVAILABLE",
      `model ${model} in ${cacheDir} does not load: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  logger.info("embedder.loaded", { model, ms: Date.now() - started });
  let dimension = 0;
  const embedBatch = async (texts: string[]): Promise<Float32Array[]> => {
    const out = await extractor(texts, { pooling: "mean", normalize: true });
    const [rows, dim] = out.dims as [number, number];
    dimension = dim;
    const data = out.data as Float32Array;
    const result: Float32Array[] = [];
    for (let i = 0; i < rows; i++) result.push(Float32Array.from(data.subarray(i * dim, (i + 1) * dim)));
    return result;
  };
  // Probe once so `dimension` is known before the first real call.
  await embedBatch(["memcards"]);
  return {
    id: `transformers:${model}`,
    dimension,
    mode: "model",
    async embed(texts) {
      const result: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        const batch = texts.slice(i, i + BATCH);
        const nonEmpty = batch.map((s) => s.slice(0, MAX_CHARS)).map((s) => (s.trim() ? s : ""));
        const idx = nonEmpty.flatMap((s, j) => (s ? [j] : []));
        const vecs = idx.length ? await embedBatch(idx.map((j) => nonEmpty[j]!)) : [];
        const row: Float32Array[] = batch.map(() => new Float32Array(dimension));
        idx.forEach((j, k) => (row[j] = vecs[k]!));
        result.push(...row);
      }
      return result;
    },
    async close() {
      await extractor.dispose();
    },
  };
}
