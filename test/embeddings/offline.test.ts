import { describe, expect, it } from "vitest";

import { createOfflineEmbedder, OFFLINE_DIMENSION } from "../../src/embeddings/offline.js";

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

describe("offline embedder", () => {
  const emb = createOfflineEmbedder();

  it("returns unit vectors of its dimension, deterministically", async () => {
    const [a, b] = await emb.embed(["parse the config file", "parse the config file"]);
    expect(a).toHaveLength(OFFLINE_DIMENSION);
    expect(Math.sqrt(cos(a!, a!))).toBeCloseTo(1, 5);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(emb.id).toBe(`offline:hash-v1:${OFFLINE_DIMENSION}`);
    expect(emb.mode).toBe("offline");
  });

  it("places identifier variants and shared words closer than unrelated text", async () => {
    const [q, near, far] = await emb.embed([
      "fix parseConfigFile when the path is missing",
      "def parse_config_file(path): raise FileNotFoundError",
      "zebra ocean sunset holiday",
    ]);
    expect(cos(q!, near!)).toBeGreaterThan(cos(q!, far!) + 0.1);
  });

  it("gives the zero vector for empty text and copes with a 1 MB input", async () => {
    const [empty, huge] = await emb.embed(["", "word ".repeat(200_000)]);
    expect(empty!.every((x) => x === 0)).toBe(true);
    expect(Math.sqrt(cos(huge!, huge!))).toBeCloseTo(1, 5);
  });
});
