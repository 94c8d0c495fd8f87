// Decisions Made holds the rules the agent bound itself to in answer to the person, not its plans of the moment.
import { describe, expect, it } from "vitest";

import { decisions } from "../../src/transcript/extract.js";
import { parseText } from "../../src/transcript/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

function decided(steps: Step[]): string[] {
  return decisions(parseText(claudeCodeSession(steps), "claude-code-jsonl").turns).map((f) => f.text);
}

describe("decisions: the agent's commitments", () => {
  it("keeps a commitment made in answer to a constraint", () => {
    const got = decided([
      { user: "make sure that you dont actually build this project. it builds in ci" },
      {
        assistant:
          "Understood — I will not run any build commands (`./gradlew`, `gradle`). All work is file edits only; CI handles the build.",
      },
      { assistant: "We won't touch the generated sources either; they are rebuilt by the pipeline." },
    ]);
    expect(got).toEqual([
      "Understood — I will not run any build commands (`./gradlew`, `gradle`).",
      "We won't touch the generated sources either; they are rebuilt by the pipeline.",
    ]);
  });

  it("leaves out what the agent will do next", () => {
    const got = decided([
      { user: "Add the sitemap." },
      { assistant: "I will now read the config file. I'll check the routes next. We will see what the build says." },
    ]);
    expect(got).toEqual([]);
  });
});
