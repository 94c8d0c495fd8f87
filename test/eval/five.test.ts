// The five-system compression evaluation on real transcripts: ground truth from the raw file, every system
// within the budget, intervals around the pooled recall, a chart.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { clusterBootstrap, fiveSystemsSvg, renderFiveSystems, runFiveSystems } from "../../bench/compress/five.js";
import { groundTruth, probeHolds } from "../../bench/compress/ground-truth.js";
import { SYSTEMS } from "../../bench/compress/systems.js";
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, longSession } from "../helpers/session.js";

/** A SWE-agent trajectory whose final patch modifies one file. */
function trajectory(dir: string): string {
  const path = join(dir, "fix.traj");
  const patch = [
    "diff --git a/pkg/handlers/numpy_handler.py b/pkg/handlers/numpy_handler.py",
    "--- a/pkg/handlers/numpy_handler.py",
    "+++ b/pkg/handlers/numpy_handler.py",
    "@@ -40,3 +40,3 @@ def get_pixeldata(ds):",
    "-    required = ['BitsAllocated', 'PixelRepresentation']",
    "+    required = ['BitsAllocated']",
    "",
  ].join("\n");
  const history = [
    { role: "system", content: "You are an autonomous programmer." },
    { role: "user", content: "ISSUE: PixelRepresentation should be optional in the numpy pixel handler." },
    { role: "assistant", content: "Let me open the handler.\n```\nopen pkg/handlers/numpy_handler.py\n```" },
    { role: "user", content: "[File: pkg/handlers/numpy_handler.py (300 lines total)]\n40: required = [...]" },
    { role: "assistant", content: "I will drop PixelRepresentation from the required list.\n```\nsubmit\n```" },
  ];
  writeFileSync(path, JSON.stringify({ history, trajectory: [], info: { submission: patch } }));
  return path;
}

describe("five-system compression evaluation", () => {
  it("takes artifacts from the trajectory's final patch and asks for the path with what was done", () => {
    const path = trajectory(mkdtempSync(join(tmpdir(), "memcards-traj-")));
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
    const dir = mkdtempSync(join(tmpdir(), "memcards-five-in-"));
    writeFileSync(join(dir, "a.jsonl"), claudeCodeSession(longSession(30, 5)));
    writeFileSync(join(dir, "b.jsonl"), claudeCodeSession(longSession(12, 12), { sessionId: "b" }));
    const r = runFiveSystems({ dir, workDir: mkdtempSync(join(tmpdir(), "memcards-five-")), budget: 1500 });
    expect(r.transcripts).toHaveLength(2);
    for (const t of r.transcripts) for (const s of SYSTEMS) expect(t.context_tokens[s]).toBeLessThanOrEqual(1500 * 1.1);
    const all = r.recall.memcards.all;
    expect(all.total).toBeGreaterThan(10);
    expect(all.lo).toBeLessThanOrEqual(all.recall);
    expect(all.hi).toBeGreaterThanOrEqual(all.recall);
    // The anchored summary keeps more of the edited files than the most recent tokens.
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
    trajectory(dir);
    writeFileSync(join(dir, "broken.jsonl"), '{"not": "a transcript"');
    const r = runFiveSystems({ dir, workDir: mkdtempSync(join(tmpdir(), "memcards-five-")), budget: 800 });
    expect(r.transcripts.map((t) => t.file)).toEqual(["fix.traj"]);
    expect(r.notes[0]).toMatch(/^Skipped \(unreadable\): broken\.jsonl: cannot tell the transcript format/);
  });
});
