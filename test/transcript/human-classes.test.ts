// The human-turn classifier and what reads it: only standing instructions reach User Constraints, as whole
// sentences even from the middle of a long turn; chit-chat and one-off requests do not; the latest one-off request
// is exposed for the summary's intent and state; distillation stores no rule unit for a request.
import { describe, expect, it } from "vitest";

import { draftUnits } from "../../src/memory/distill.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { classifyTurn, latestRequest } from "../../src/transcript/extraction/human-classes.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

const parsed = (steps: Step[]) => parseText(claudeCodeSession(steps), "claude-code-jsonl");

describe("the human-turn classifier", () => {
  const RULE = "Remember to keep the specification.md updated as we progress, and never edit config/prod.yaml.";
  const long = [
    "Port the billing export to the new reporting service so finance can download monthly statements.",
    "The current exporter writes CSV by hand and breaks on commas inside customer names, which finance keeps hitting.",
    "There is also an old cron job on the reporting box that nobody remembers setting up and it may be related.",
    RULE,
    "Finance mostly opens the files in spreadsheet software on laptops that are a few years old, so size matters.",
    "The statements themselves are generated nightly and are usually a few hundred rows per customer at most.",
  ].join(" ");

  it("keeps a standing rule from the middle of a long turn whole, and only the turn's rule sentences", () => {
    const t = parsed([{ user: long }, { assistant: "I'll start with the exporter." }]);
    expect(classifyTurn(long)).toBe("instruction");
    const c = extractSections(t.turns).constraints;
    expect(c).toHaveLength(1);
    expect(c[0]!.text).toContain(RULE);
    for (const part of c[0]!.text.split(" … ")) expect(long).toContain(part);
  });

  it("does not make chit-chat a constraint", () => {
    const t = parsed([
      { user: "Add retries to the HTTP client." },
      { assistant: "Shall I use exponential backoff?" },
      { user: "yup, go for it. thank you." },
    ]);
    expect(classifyTurn("yup, go for it. thank you.")).not.toBe("instruction");
    expect(
      extractSections(t.turns)
        .constraints.map((f) => f.text)
        .join("\n"),
    ).not.toContain("go for it");
  });

  it("keeps a one-off request out of User Constraints and out of the rule units, and reports it as the latest request", () => {
    const STANDING = "Always keep the README updated every time you change the CLI.";
    const t = parsed([
      { user: STANDING },
      { assistant: "Understood." },
      { user: "list the unused functions" },
      { assistant: "Here are the unused functions: parseLegacy, oldFormat." },
      { user: "Can you list the unused functions in the tests folder too?" },
      { assistant: "In tests/: makeFixtureOld." },
    ]);
    expect(classifyTurn(STANDING)).toBe("instruction");
    expect(classifyTurn("list the unused functions")).not.toBe("instruction");
    const s = extractSections(t.turns);
    expect(s.constraints.map((f) => f.text)).toEqual([STANDING]);
    const rules = draftUnits("s1", t.turns, s)
      .filter((d) => d.category === "commitment")
      .map((d) => d.text);
    expect(rules).toEqual([STANDING]);
    expect(latestRequest(t.turns)?.text).toBe("Can you list the unused functions in the tests folder too?");
  });
});
