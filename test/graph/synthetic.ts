// A synthetic Python repository big enough for an index to take a while (kill, concurrency and progress tests).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { tmpDir } from "../helpers/tmp.js";

export function syntheticRepo(files: number, fnsPerFile = 30): string {
  const root = tmpDir("memcards-synth-");
  for (let i = 0; i < files; i++) {
    const dir = join(root, `pkg${i % 20}`);
    mkdirSync(dir, { recursive: true });
    const lines = [`"""Module ${i}."""`, `from pkg${(i + 1) % 20} import mod${(i + 1) % files}`, ""];
    for (let f = 0; f < fnsPerFile; f++) {
      lines.push(`def compute_value_${i}_${f}(x, y):`, `    """Compute ${f}."""`, `    return x * ${f} + y`, "");
    }
    lines.push(`class Widget${i}:`, `    def render(self):`, `        return ${i}`, "");
    writeFileSync(join(dir, `mod${i}.py`), lines.join("\n"));
  }
  return root;
}
