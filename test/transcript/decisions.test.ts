// Decisions Made holds the rules the agent bound itself to in answer to the person (not what it will do next), the
// plan it laid out under a plan heading, and the branch it opened for the work.
import { describe, expect, it } from "vitest";

import { decisions } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
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
      { assistant: "Got it, I'll only edit the test files from here on." },
    ]);
    expect(got).toEqual([
      "Understood — I will not run any build commands (`./gradlew`, `gradle`).",
      "We won't touch the generated sources either; they are rebuilt by the pipeline.",
      "Got it, I'll only edit the test files from here on.",
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

describe("decisions: plans and branches", () => {
  it("keeps the items of a plan the agent laid out, not other lists", () => {
    const got = decided([
      { user: "The dark mode text is unreadable." },
      {
        assistant: [
          "**Issues Found:**",
          "1. **Blog.js** - Uses undefined custom color classes",
          "",
          "**Plan:**",
          "- Add dark mode variants to all hardcoded text colors",
          "- Fix undefined custom classes in Blog.js",
          "",
          "Should I proceed with implementing these fixes?",
        ].join("\n"),
      },
    ]);
    expect(got).toEqual([
      "plan: Add dark mode variants to all hardcoded text colors",
      "plan: Fix undefined custom classes in Blog.js",
    ]);
  });

  it("keeps the branch the work moved to, once", () => {
    const got = decided([
      { user: "Refactor the plugin on its own branch." },
      { bash: { command: 'cd /repo; git checkout -b "Refactor-Plugin"', output: "Switched to a new branch" } },
      { bash: { command: "git switch -c Refactor-Plugin", output: "fatal: a branch named 'Refactor-Plugin' exists" } },
      { bash: { command: "git checkout -- src/a.ts", output: "" } },
    ]);
    expect(got).toEqual(["work on a new branch `Refactor-Plugin`"]);
  });
});
