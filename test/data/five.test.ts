// The five-system compression evaluation on two real sessions of the development data.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { fiveSystemsSvg, renderFiveSystems, runFiveSystems } from "../../bench/compress/five.js";
import { SYSTEMS } from "../../bench/compress/systems.js";
import { TRANSCRIPTS } from "./location.js";

describe("five-system compression evaluation on real sessions", () => {
  it("runs the five systems at one budget and reports recall with intervals", () => {
    const r = runFiveSystems({
      dir: TRANSCRIPTS,
      workDir: mkdtempSync(join(tmpdir(), "memcards-five-")),
      budget: 1500,
      files: ["polychrome-undo-layers.md", "harmony-claude-pr341.jsonl"],
    });
    expect(r.transcripts).toHaveLength(2);
    for (const t of r.transcripts) for (const s of SYSTEMS) expect(t.context_tokens[s]).toBeLessThanOrEqual(1500 * 1.1);
    const all = r.recall.memcards.all;
    expect(all.total).toBeGreaterThan(10);
    expect(all.lo).toBeLessThanOrEqual(all.recall);
    expect(all.hi).toBeGreaterThanOrEqual(all.recall);
    // On real sessions the anchored summary keeps more of the edited files than the most recent tokens.
    expect(r.recall.memcards.artifact.recall).toBeGreaterThan(r.recall.window.artifact.recall);
    expect(renderFiveSystems(r)).toMatch(/\| memcards \| \d\.\d\d \[/);
    const svg = fiveSystemsSvg(r);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.match(/<rect [^>]*><title>/g)).toHaveLength(SYSTEMS.length * 6);
  });
});
