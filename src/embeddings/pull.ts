// `memcards models pull`: the one place that may download, run by the user, never while serving or in a hook.
import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import { isModelCached, loadTransformers } from "./transformers.js";

export interface PullOptions {
  model: string;
  cacheDir: string;
  logger: Logger;
  /** Remote host override (a mirror); defaults to the Hugging Face Hub. */
  remoteHost?: string;
  /** Gives up after this many milliseconds. */
  timeoutMs?: number;
  onProgress?: (file: string, loaded: number, total: number) => void;
}

/** Downloads a sentence model (config, tokenizer, fp32 ONNX weights) into `cacheDir`, or says clearly why not. */
export async function pullModel(opts: PullOptions): Promise<void> {
  const { model, cacheDir, logger } = opts;
  if (isModelCached(model, cacheDir)) {
    logger.info("models.pull.cached", { model, cacheDir });
    return;
  }
  const t = await loadTransformers(cacheDir, true);
  if (opts.remoteHost) t.env.remoteHost = opts.remoteHost.endsWith("/") ? opts.remoteHost : opts.remoteHost + "/";
  const timeoutMs = opts.timeoutMs ?? 10 * 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError("MODEL_PULL_FAILED", `downloading ${model} took over ${timeoutMs / 1000}s`)),
      timeoutMs,
    );
  });
  try {
    const load = t.pipeline("feature-extraction", model, {
      dtype: "fp32",
      progress_callback: (p: { status?: string; file?: string; loaded?: number; total?: number }) => {
        if (p.status === "progress" && p.file) opts.onProgress?.(p.file, p.loaded ?? 0, p.total ?? 0);
      },
    });
    const extractor = await Promise.race([load, timeout]);
    await extractor.dispose();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(
      "MODEL_PULL_FAILED",
      `could not download ${model} from ${t.env.remoteHost} (${(err as Error).message}). ` +
        `It needs network access to the Hugging Face Hub once; or copy the model folder to ${cacheDir}/${model}`,
      { cause: err },
    );
  } finally {
    clearTimeout(timer);
    t.env.allowRemoteModels = false;
  }
  if (!isModelCached(model, cacheDir)) {
    throw new AppError("MODEL_PULL_FAILED", `download of ${model} finished but ${cacheDir}/${model} is incomplete`);
  }
  logger.info("models.pull.done", { model, cacheDir });
}
