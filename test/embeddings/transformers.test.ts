// The transformers.js path users run, over a real ONNX model on disk, with remote downloads off.
import { describe, expect, it } from "vitest";

import { pullModel } from "../../src/embeddings/pull.js";
import { chooseEmbedder } from "../../src/embeddings/select.js";
import { createTransformersEmbedder, isModelCached } from "../../src/embeddings/transformers.js";
import { AppError } from "../../src/errors.js";
import { silentLogger } from "../../src/log.js";
import { tinyModelsDir } from "../helpers/tiny-model.js";
import { tmpDir } from "../helpers/tmp.js";

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("transformers embedder", () => {
  const { modelsDir, model, dimension } = tinyModelsDir();

  it("loads a model from disk and returns normalized, batched, deterministic vectors", async () => {
    expect(isModelCached(model, modelsDir)).toBe(true);
    const emb = await createTransformersEmbedder({ model, cacheDir: modelsDir, logger: silentLogger });
    try {
      expect(emb.id).toBe(`transformers:${model}`);
      expect(emb.dimension).toBe(dimension);
      const texts = ["the sqlite database table", "pytest assert tests", "sql storage", "", "a cat and a dog"];
      const vecs = await emb.embed(texts);
      expect(vecs).toHaveLength(5);
      for (const [i, v] of vecs.entries()) {
        expect(v).toHaveLength(dimension);
        const norm = Math.sqrt(cos(v, v));
        if (i === 3) expect(norm).toBe(0);
        else expect(norm).toBeCloseTo(1, 4);
      }
      // Related words sit in one group of the tiny model: the database texts are closer than unrelated ones.
      expect(cos(vecs[0]!, vecs[2]!)).toBeGreaterThan(cos(vecs[0]!, vecs[1]!));
      const again = await emb.embed(["sql storage"]);
      expect(Array.from(again[0]!)).toEqual(Array.from(vecs[2]!));
      // More texts than one batch keep their order.
      const many = Array.from({ length: 40 }, (_, i) => (i % 2 ? "database" : "pytest"));
      const manyVecs = await emb.embed(many);
      expect(cos(manyVecs[0]!, manyVecs[38]!)).toBeCloseTo(1, 5);
      expect(cos(manyVecs[1]!, manyVecs[39]!)).toBeCloseTo(1, 5);
    } finally {
      await emb.close?.();
    }
  });

  it("is picked by chooseEmbedder when cached, lazily", async () => {
    const choice = chooseEmbedder(model, undefined, modelsDir, silentLogger);
    expect(choice.embedder.mode).toBe("model");
    expect(choice.embedder.dimension).toBe(dimension);
    const [v] = await choice.embedder.embed(["memory recall"]);
    expect(v).toHaveLength(dimension);
    await choice.embedder.close?.();
  });

  it("falls back to the offline embedder, with a note, when the model is missing", () => {
    const choice = chooseEmbedder("nobody/missing-model", undefined, modelsDir, silentLogger);
    expect(choice.embedder.mode).toBe("offline");
    expect(choice.note).toMatch(/memcards models pull nobody\/missing-model/);
  });

  it("says how to fix a missing model", async () => {
    const err = await createTransformersEmbedder({
      model: "nobody/missing",
      cacheDir: modelsDir,
      logger: silentLogger,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("EMBEDDER_UNAVAILABLE");
    expect((err as AppError).message).toMatch(/memcards models pull nobody\/missing/);
  });

  it("pull fails with a clear error when the hub is unreachable, and leaves nothing half-made", async () => {
    const cacheDir = tmpDir();
    const err = await pullModel({
      model: "nobody/missing",
      cacheDir,
      logger: silentLogger,
      remoteHost: "http://127.0.0.1:9/",
      timeoutMs: 20_000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("MODEL_PULL_FAILED");
    expect(isModelCached("nobody/missing", cacheDir)).toBe(false);
  });

  it("pull is a no-op for a cached model", async () => {
    await expect(pullModel({ model, cacheDir: modelsDir, logger: silentLogger })).resolves.toBeUndefined();
  });
});
