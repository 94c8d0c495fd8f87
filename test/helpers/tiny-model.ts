// The tiny ONNX sentence model of scripts/make-tiny-model.mjs, written once per test file into a temp models dir.
// eslint-disable-next-line @typescript-eslint/ban-ts-comment
// @ts-ignore -- plain .mjs script without types
import { makeTinyModel, TINY_MODEL } from "../../scripts/make-tiny-model.mjs";
import { tmpDir } from "./tmp.js";

export { TINY_MODEL };

/** A models directory holding the tiny model, laid out like `memcards models pull` leaves one. */
export function tinyModelsDir(): { modelsDir: string; model: string; dimension: number } {
  const modelsDir = tmpDir("memcards-models-");
  const made = (makeTinyModel as (dir: string) => { model: string; dimension: number })(modelsDir);
  return { modelsDir, model: made.model, dimension: made.dimension };
}
