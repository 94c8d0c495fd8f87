// Current State says where the work stands at the end: the answer the person last replied to, the report that closed
// the last work and the agent's last words; a long report keeps its conclusion, not only its opening.
import { describe, expect, it } from "vitest";

import { currentState } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

function stateOf(steps: Step[]): string[] {
  return currentState(parseText(claudeCodeSession(steps), "claude-code-jsonl").turns).map((f) => f.text);
}

const LONG_REPORT = [
  "The test results show every conversion case ran.",
  ...Array.from(
    { length: 12 },
    (_, i) => `- Case ${i + 1} converted the record set with its constraints, nullable settings and coercion intact.`,
  ),
  "There are warnings about the regex attribute during conversion, but all tests pass completely.",
].join("\n");

describe("current state", () => {
  it("keeps the answer the person replied to, before the agent's last words", () => {
    const state = stateOf([
      { user: "Check whether the converter keeps nullable columns." },
      { bash: { command: "pytest -q", output: "42 passed" } },
      { assistant: "The converter keeps nullable columns; the suite passes with 42 tests." },
      { user: "Can we also silence the regex warning?" },
      { read: { file: "src/schema.py", lines: ["def schema():", "    pass"] } },
      { assistant: "The warning comes from reading the regex attribute that SeriesSchema lacks in this version." },
    ]);
    expect(state).toHaveLength(2);
    expect(state[0]).toContain("the suite passes with 42 tests");
    expect(state[1]).toContain("SeriesSchema lacks");
  });

  it("keeps a long report's opening and its conclusion", () => {
    const state = stateOf([
      { user: "Run the conversion tests." },
      { bash: { command: "python test.py", output: "ok" } },
      { assistant: LONG_REPORT },
    ]);
    expect(state).toHaveLength(1);
    expect(state[0]).toMatch(/^The test results show every conversion case ran\. … /);
    expect(state[0]).toContain("all tests pass completely.");
    expect(state[0]!.length).toBeLessThanOrEqual(900);
  });

  it("says nothing twice when the last answer is also the last words", () => {
    const state = stateOf([
      { user: "Rename the helper." },
      { edit: { file: "src/util.ts", old: "helper", new: "format" } },
      { assistant: "Renamed the helper to format in src/util.ts; nothing else referred to it." },
    ]);
    expect(state).toEqual(["Renamed the helper to format in src/util.ts; nothing else referred to it."]);
  });
});
