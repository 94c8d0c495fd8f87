// The five-system compression evaluation on real transcripts: ground truth from the raw file, every system
// within the budget, intervals around the pooled recall, a chart.
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { clusterBootstrap, fiveSystemsSvg, renderFiveSystems, runFiveSystems } from "../../bench/compress/five.js";
import { groundTruth, probeHolds } from "../../bench/compress/ground-truth.js";
import { SYSTEMS } from "../../bench/compress/systems.js";
import { parseTranscriptFile } from "../../src/transcript/parse.js";
import { shared } from "../transcript/data.js";

describe("five-system compression evaluation", () => {
  it("takes artifacts from the trajectory's final patch and asks for the path with what was done", () => {
    const path = shared("swe-agent__pydicom__pydicom-1458.traj");
    const probes = groundTruth(parseTranscriptFile(path), { path });
    const artifacts = probes.filter((p) => p.category === "artifact");
    expect(artifacts.length).toBeGreaterThan(0);
    const a = artifacts[0]!;
    expect(a.kind).toBe("cooccur");
    const file = a.kind === "cooccur" ? a.groups[0]![0]! : "";
    const op = a.label.split(" ")[0]!; // created | modified | deleted
    expect(probeHolds(a, `We ${op} ${file} to fix the encoding.`)).toBe(true);
    // The path alone, far from any word of what was done, does not count.
    expect(probeHolds(a, `${file}${" filler".repeat(80)} ${op}`)).toBe(false);
  });

  it("runs the five systems at one budget and reports recall with intervals", () => {
    const r = runFiveSystems({
      dir: shared(""),
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

  it("resamples whole transcripts for the interval", () => {
    const c = clusterBootstrap([
      { hits: 10, total: 10 },
      { hits: 0, total: 10 },
      { hits: 5, total: 10 },
    ]);
    expect(c.recall).toBe(0.5);
    expect(c.lo).toBeLessThan(0.5);
    expect(c.hi).toBeGreaterThan(0.5);
    expect(clusterBootstrap([{ hits: 0, total: 0 }])).toMatchObject({ total: 0, recall: 0 });
  });

  it("skips an unreadable transcript with its reason and scores the rest", () => {
    const dir = mkdtempSync(join(tmpdir(), "memcards-five-in-"));
    copyFileSync(shared("swe-agent__pydicom__pydicom-1458.traj"), join(dir, "pydicom.traj"));
    writeFileSync(join(dir, "broken.jsonl"), '{"not": "a transcript"');
    const r = runFiveSystems({ dir, workDir: mkdtempSync(join(tmpdir(), "memcards-five-")), budget: 800 });
    expect(r.transcripts.map((t) => t.file)).toEqual(["pydicom.traj"]);
    expect(r.notes[0]).toMatch(/^Skipped \(unreadable\): broken\.jsonl: cannot tell the transcript format/);
  });
});
