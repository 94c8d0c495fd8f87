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

  it("keeps a commitment carried out only when it names what it changes, not narration of the next step", () => {
    const got = decided([
      { user: "Simplify the customer mapping page and show friendly factor names on the score card." },
      {
        assistant: [
          "I'll apply the same simplification logic to the vendor mapping page.",
          "I will correct the syntax and try the edit command again.",
          "I will update `src/components/RiskScoreCard.tsx` to format technical factor codes into title case.",
        ].join("\n"),
      },
      // An edit follows before the person speaks again: the commitments are carried out.
      { edit: { file: "src/components/RiskScoreCard.tsx", old: "a", new: "b" } },
    ]);
    expect(got).toEqual([
      "I will update `src/components/RiskScoreCard.tsx` to format technical factor codes into title case.",
    ]);
  });

  it("keeps a carried-out commitment that names a file, constant or flag of any language or build tool", () => {
    const named = [
      "I'll update App.vue to show the consent banner on every page.",
      "I'll change the base image in the Dockerfile to the slim variant.",
      "I'll add a lint target to the Makefile for the pipeline job.",
      "I'll raise MAX_RETRIES in the HTTP client to five attempts.",
      "I'll add the --dry-run flag to the deploy command as well.",
      "I'll move the signal handler into main.c and drop the old header.",
    ];
    const got = decided([
      { user: "Make the deploy safer and show the consent banner." },
      { assistant: [...named, "I'll apply the same simplification logic to the vendor mapping page."].join("\n") },
      { edit: { file: "App.vue", old: "a", new: "b" } },
    ]);
    expect(got).toEqual(named);
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

describe("decisions: choices, not narration", () => {
  it("keeps the person's answer in a question tool, with its question", () => {
    const got = decided([
      { user: "Build the settings page." },
      {
        tool: {
          name: "AskUserQuestion",
          input: {
            questions: [
              {
                question: "Where should the settings live?",
                options: [{ label: "localStorage (Recommended)" }, { label: "A settings file" }],
              },
            ],
          },
          output:
            'User has answered your questions: "Where should the settings live?"="localStorage (Recommended)". You can now continue.',
        },
      },
    ]);
    expect(got).toEqual(['asked "Where should the settings live?": the person chose "localStorage (Recommended)"']);
  });

  it("names the option a person picks by its number, and passes over a closing offer of other work", () => {
    const got = decided([
      { user: "The sync fails on field 51000." },
      {
        assistant: [
          "Here are the solutions:",
          "",
          "**Option 1: Add field 51000 to the mapping table**",
          "We could add the field.",
          "",
          "**Option 2: Update the cue page logic**",
          "We could handle the mismatch.",
          "",
          "Which approach would you prefer? Or do you have a different task you'd like me to help with?",
        ].join("\n"),
      },
      { user: "Option 1, also for vendors" },
    ]);
    expect(got).toEqual([
      'asked "Which approach would you prefer?": the person chose "Add field 51000 to the mapping table" ("Option 1, also for vendors")',
    ]);
  });

  it("leaves out an answer that leaves the choice to the agent", () => {
    const got = decided([
      { user: "Entries fail to post." },
      { assistant: "We can post per voucher or per day. Which approach would you prefer?" },
      { user: "Do the option that you think is best." },
    ]);
    expect(got).toEqual([]);
  });

  it("keeps a recommendation only once it is carried out or taken up", () => {
    const advice = "The controller already uses PascalCase, so I'd recommend updating the model to match it.";
    const rejected = decided([
      { user: "Review the Product model." },
      { assistant: advice },
      { user: "follow camelCase and add SKU." },
      { edit: { file: "Models/Product.cs", old: "Name", new: "name" } },
    ]);
    expect(rejected).toEqual([]);
    const taken = decided([
      { user: "Review the Product model." },
      { assistant: advice },
      { user: "yes, do that" },
      { edit: { file: "Models/Product.cs", old: "name", new: "Name" } },
    ]);
    expect(taken).toEqual([advice]);
  });

  it("leaves out recap items, reproduction scripts, headings and restatements", () => {
    const got = decided([
      { user: "Fix the customer sync." },
      {
        assistant: [
          "## 2. Switch to the correct database",
          "- **Address Fields**: Fixed to use direct fields (`address`, `city`) instead of nested objects",
          "First, I'll create a new Python script to reproduce the bug as described in the issue.",
          "I'll add field 51000 to both the Customer Mapping and Vendor Mapping tables to match the extensions.",
          "I'll add field 51000 to both mapping tables.",
        ].join("\n"),
      },
      // An edit follows before the person speaks again: the commitments are carried out.
      { edit: { file: "src/mapping.al", old: "a", new: "b" } },
    ]);
    expect(got).toEqual([
      "I'll add field 51000 to both the Customer Mapping and Vendor Mapping tables to match the extensions.",
    ]);
  });
});

describe("decisions: a question tool in a SpecStory export", () => {
  it("keeps the answer the export shows under the question", () => {
    const md = [
      "# Session",
      "",
      "_**User (2026-05-21 06:40:00Z)**_",
      "",
      "Build the first-run wizard.",
      "",
      "_**Agent (claude-opus 2026-05-21 06:50:52Z)**_",
      "",
      '<tool-use data-tool-type="generic" data-tool-name="AskUserQuestion"><details>',
      "<summary>Tool use: **AskUserQuestion**</summary>",
      "**How far should the wizard go without a backend?**",
      "",
      "Options:",
      "- **Stores-only (Recommended)** - zustand stores, localStorage flag.",
      "- **Network mock** - msw handlers.",
      "",
      "",
      "**Answer:** Stores-only (Recommended)",
      "</details></tool-use>",
      "",
    ].join("\n");
    const got = decisions(parseText(md, "specstory-md").turns).map((f) => f.text);
    expect(got).toEqual([
      'asked "How far should the wizard go without a backend?": the person chose "Stores-only (Recommended)"',
    ]);
  });
});

describe("decisions: a choice left open or a check under way is not a decision", () => {
  it("keeps the carried-out commitment and drops hedged alternatives and reports of what is running", () => {
    const got = decided([
      { user: "The particles crash the client on load; fix it." },
      {
        assistant: [
          "I'll switch the spawner to the vanilla dust particle instead of the custom one, because the custom type is not registered on the client.",
          "I'll use the dust particle or just use the entity effect to be safe at runtime.",
          "I'll cache the particle registry lookup in a static field, because a lookup per tick might stall the client.",
          "Then I'll patch whichever side is actually wrong and rerun the relevant verification before pushing.",
          "Dependency installs are running for the client and server now so I can verify instead of reading the code.",
          "I'm switching to the verifications that don't need a running server: type checks plus the unit tests.",
        ].join(" "),
      },
      { edit: { file: "src/particles.ts", old: "CUSTOM_DUST", new: "ParticleTypes.DUST" } },
    ]);
    expect(got).toEqual([
      "I'll switch the spawner to the vanilla dust particle instead of the custom one, because the custom type is not registered on the client.",
      "I'll cache the particle registry lookup in a static field, because a lookup per tick might stall the client.",
    ]);
  });
});

describe("decisions: a report of a change made is not a choice", () => {
  it("drops recap lines that open on the change's verb and keeps the agent's own choice", () => {
    const got = decided([
      { user: "The vendor names show the FlowField value; store them instead." },
      {
        assistant: [
          "Instead of adding a new field, I'll change the existing Vendor Name field from a FlowField to a normal field, because the FlowField cannot be filtered.",
          "- Updated the sync method to use RequestType::Entry instead of Journal",
          "- Uses telephoneAndFaxNumber instead of a separate phone field",
          "This change removes the venv prefix so the script uses the system Python instead of a virtual environment.",
        ].join("\n"),
      },
      { edit: { file: "src/VendorMapping.al", old: "FieldClass = FlowField;", new: "" } },
    ]);
    expect(got).toEqual([
      "Instead of adding a new field, I'll change the existing Vendor Name field from a FlowField to a normal field, because the FlowField cannot be filtered.",
    ]);
  });
});

describe("decisions: an example in the reason, and a change reported with its reason", () => {
  it("keeps a choice whose reason gives an example, and a change made that says why, not a bare recap", () => {
    const withExample =
      "I'll switch the sitemap builder to xmlbuilder2 instead of string concatenation, because concatenation breaks on special characters, for example ampersands in titles.";
    const reported = "Switched the page cache to an LRU map instead of Redis, because the service runs as one process.";
    const got = decided([
      { user: "The sitemap breaks on titles with ampersands; fix it and make the pages faster." },
      {
        assistant: [
          withExample,
          reported,
          "- Updated the sitemap route to use the new builder instead of the old one",
        ].join("\n"),
      },
      { edit: { file: "src/sitemap/build.ts", old: "out += `<loc>${url}</loc>`", new: "root.ele('loc').txt(url)" } },
    ]);
    expect(got).toEqual([withExample, reported]);
  });
});

describe("decisions: the person's pick of an either-or question", () => {
  it("keeps a short reply that names one side of the agent's `X or Y` question, not a reply that names both", () => {
    const pick = decided([
      { user: "Add session storage for the login tokens." },
      { assistant: "Should I keep the tokens in Redis or in Postgres?" },
      { user: "Postgres, we already run it." },
    ]);
    expect(pick).toEqual([
      'asked "Should I keep the tokens in Redis or in Postgres?": the person chose "Postgres, we already run it."',
    ]);
    const both = decided([
      { user: "Add session storage for the login tokens." },
      { assistant: "Should I keep the tokens in Redis or in Postgres?" },
      { user: "Postgres now, Redis later." },
    ]);
    expect(both).toEqual([]);
  });
});

describe("decisions: a reply to an either-or question that asks back, or ends on the side it names", () => {
  const ask = (q: string, reply: string) =>
    decided([{ user: "Add session storage for the login tokens." }, { assistant: q }, { user: reply }]);

  it("does not take a reply that asks about one side for the person's pick", () => {
    const q = "Should I keep the tokens in Redis or in Postgres?";
    expect(ask(q, "Is Postgres fast enough here?")).toEqual([]);
    expect(ask(q, "Hmm, what about Postgres?")).toEqual([]);
  });

  it("takes a reply whose side closes the sentence, a file name included", () => {
    expect(ask("Should I keep the tokens in Redis or in Postgres?", "I'd say Postgres.")).toEqual([
      'asked "Should I keep the tokens in Redis or in Postgres?": the person chose "I\'d say Postgres."',
    ]);
    expect(ask("Do you want the config in config.yaml or settings.json?", "settings.json.")).toEqual([
      'asked "Do you want the config in config.yaml or settings.json?": the person chose "settings.json."',
    ]);
  });
});

describe("decisions: a labelled entry in which the agent chooses", () => {
  it("keeps `Decision: we'll …` and a choice before a colon, not a recap that tells the person what they now get", () => {
    const lines = [
      "Decision: we'll keep the tokens in Postgres instead of Redis, because it is already running.",
      "We use Postgres here: tokens stay durable instead of vanishing on restart, because it is already running.",
      "Rich Vendor Creation: you now get a vendor row instead of a stub, because the form posts it.",
    ];
    expect(decided([{ user: "Add session storage for the login tokens." }, { assistant: lines.join("\n\n") }])).toEqual(
      lines.slice(0, 2),
    );
  });
});
