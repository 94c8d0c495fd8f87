// Packing a summary under its budget: a person's instruction kept whole outranks more lines of the agent's musings,
// while a file keeps its path in a short line before its list of operations takes room.
import { describe, expect, it } from "vitest";

import { emptySections } from "../../src/transcript/extraction/merge.js";
import { FIRM_CUES, wholeSentences } from "../../src/transcript/rendering/clip.js";
import { renderSections } from "../../src/transcript/rendering/render.js";

const sectionOf = (md: string, title: string): string => md.split(`## ${title}\n`)[1]?.split("\n## ")[0] ?? "";

const LONG_ASK =
  "With the perspective of a software engineer, please analyze the undo.layers.js file and look for potential issues and improvements. " +
  "Keep in mind that the intended functionality is the ability to rollback a visual change, and to restore a visual change. " +
  "The current implementation is not necessarily the best. " +
  "Without making any changes, please report on your analysis, your recommendations, and the pros and cons of each.";

function crowded() {
  const s = emptySections();
  s.constraints.push({ text: LONG_ASK, turn: "t3" });
  for (let i = 0; i < 60; i++)
    s.decisions.push({
      text: `Considered approach ${i} because the cache layer ${i} might be simpler to reason about`,
      turn: `t${10 + i}`,
    });
  s.files["src/undo/undo.layers.js"] = Array.from({ length: 12 }, (_, i) => ({ op: "edited", turn: `t${80 + i}` }));
  return s;
}

describe("packing under a budget", () => {
  it("keeps the person's instruction whole before more of the agent's decision lines", () => {
    const r = renderSections(crowded(), 700);
    const constraints = sectionOf(r.markdown, "User Constraints");
    expect(constraints).toContain("Without making any changes");
    expect(r.omitted.decisions ?? 0).toBeGreaterThan(0);
  });

  it("keeps a file's short line before its list of operations", () => {
    const r = renderSections(crowded(), 700);
    const files = sectionOf(r.markdown, "Files Modified");
    expect(files).toContain("`src/undo/undo.layers.js` — 12 changes, last edited (t91)");
    expect(files).not.toContain("(t80)");
  });

  it("renders every line in full when the budget allows", () => {
    const r = renderSections(crowded(), 50_000);
    expect(r.omitted).toEqual({});
    expect(sectionOf(r.markdown, "Files Modified")).toContain("edited (t80); edited (t81)");
  });
});

describe("shortening a long instruction", () => {
  const mods = ["router", "store", "parser", "form", "logger", "schema", "mock", "client", "theme", "wizard"];
  const ask = [
    "Fix the update flow:",
    ...mods.map((m) => `- Do not change the public API of the ${m} module or its tests.`),
    "Make only the minimum changes required.",
  ].join("\n");

  it("keeps the closing rule after the opening and the cued sentences that fit", () => {
    const short = wholeSentences(ask, 220, FIRM_CUES, 0);
    expect(short.length).toBeLessThanOrEqual(220);
    expect(short).toMatch(/^Fix the update flow: - Do not change the public API of the router module/);
    expect(short.endsWith("… Make only the minimum changes required.")).toBe(true);
    expect(wholeSentences(ask, 480).endsWith("Make only the minimum changes required.")).toBe(true);
  });

  it("leaves a closing sentence without a cue to the cued ones", () => {
    const chatty = `${ask.replace("Make only the minimum changes required.", "")}\nThanks a lot for the help here.`;
    expect(wholeSentences(chatty, 220, FIRM_CUES, 0)).not.toContain("Thanks a lot");
  });
});
