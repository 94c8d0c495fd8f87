// Kinds of lines real sessions produce, each read as what it is: an editor's diagnostics after a save, a PowerShell
// error record and a linter's coded diagnostics are failures; an agent's claim that a change fixes an error, code the
// person pasted, exception names in the agent's code, a listing beside `git log` and a harness's instructions are
// not; the commits and last words of the kept messages say where the work stands.
import { describe, expect, it } from "vitest";

import { extractSections, failures } from "../../src/transcript/extraction/extract.js";
import { humanPart, injectedKind } from "../../src/transcript/extraction/human.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { renderSections } from "../../src/transcript/rendering/render.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

const sectionOf = (md: string, title: string): string => md.split(`## ${title}\n`)[1]?.split("\n## ")[0] ?? "";

function turnsOf(steps: Step[]) {
  return parseText(claudeCodeSession(steps), "claude-code-jsonl").turns;
}

const failureTexts = (steps: Step[]): string[] => failures(turnsOf(steps), undefined).map((f) => f.text);

describe("failures: lines that report an error", () => {
  it("reads the editor's diagnostic under a save that reported problems, not the save line", () => {
    const got = failureTexts([
      { user: "Add the testimonials section." },
      {
        tool: {
          name: "create_file",
          input: { path: "components/Quotes.js", content: "export default function Quotes() {}" },
          output:
            "The content was successfully saved to components/Quotes.js.\n\nNew problems detected after saving the file:\ncomponents/Quotes.js\n- [eslint Error] Line 12: Parsing error: Unexpected token }",
          error: true,
        },
      },
    ]);
    expect(got).toEqual(["[eslint Error] Line 12: Parsing error: Unexpected token }"]);
  });

  it("reads a PowerShell error record's message", () => {
    const got = failureTexts([
      { user: "Start the dev server." },
      {
        bash: {
          command: "cd c:/work/site && npm start",
          output: [
            "At line:1 char:19",
            "+ cd c:/work/site && npm start",
            "+                 ~~",
            "The token '&&' is not a valid statement separator in this version.",
            "    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException",
            "    + FullyQualifiedErrorId : InvalidEndOfLine",
          ].join("\n"),
        },
      },
    ]);
    expect(got).toContain("The token '&&' is not a valid statement separator in this version.");
  });

  it("reads a linter's coded diagnostic (path:line:col: F821 …), still not a grep hit", () => {
    const got = failureTexts([
      { user: "Check the script." },
      {
        bash: {
          command: "python -m flake8 --select=E9,F821 report.py",
          output: "report.py:41:9: F821 undefined name 'totals_by_day'\n",
        },
      },
      {
        bash: {
          command: "python tools/scan.py --pattern error",
          output: "src/app.py:10: message = 'an error happened'\n",
        },
      },
    ]);
    expect(got).toEqual(["report.py:41:9: F821 undefined name 'totals_by_day'"]);
  });
});

describe("failures: lines that only look like errors", () => {
  it("leaves out a listing's expected 'No such file' when the command also runs git log", () => {
    const got = failureTexts([
      { user: "Is the old banner gone?" },
      {
        bash: {
          command: "ls web/banner/ 2>&1; echo ---; git log --diff-filter=D --name-only -- web/banner/",
          output:
            '"web/banner/": No such file or directory (os error 2)\n---\n1a2b3c4 drop the banner\nweb/banner/Banner.tsx',
        },
      },
    ]);
    expect(got).toEqual([]);
  });

  it("reads errors from a log file the session tailed", () => {
    const got = failureTexts([
      { user: "Why did the worker stop?" },
      { bash: { command: "tail -n 20 logs/worker.log", output: "ValueError: queue name must not be empty" } },
    ]);
    expect(got).toEqual(["ValueError: queue name must not be empty"]);
  });

  it("leaves out the agent's claim that its change resolves an error", () => {
    const got = failureTexts([
      { user: "Import the helper." },
      {
        assistant:
          "I added the import. This should resolve the `NameError: name 'parse_row' is not defined` error since the helper is now imported.",
      },
    ]);
    expect(got).toEqual([]);
  });

  it("leaves out exception names in code the agent writes, keeps one it quotes in prose", () => {
    const got = failureTexts([
      { user: "Add handlers." },
      {
        assistant: [
          "api/main.py",
          "```python",
          "from web.exceptions import RequestRejected",
          "@app.exception_handler(RequestRejected)",
          "```",
          "The run failed with `KeyError: 'tenant'` before this change.",
        ].join("\n"),
      },
    ]);
    expect(got).toEqual(["`KeyError: 'tenant'` before this change."]);
  });

  it("leaves out source code the person pasted (a handler table with lambdas)", () => {
    const got = failureTexts([
      {
        user: [
          "Here is my setup:",
          "app = Server(",
          "    handlers={",
          "        LookupError: lambda request, exc: Reply(",
          "            status=404,",
          "        ),",
          "    }",
          ")",
        ].join("\n"),
      },
    ]);
    expect(got).toEqual([]);
  });

  it("keeps a harness's standing instructions out of the person's words and of Failures", () => {
    const task = [
      "We're currently solving the following issue within our repository. Here's the issue text:",
      "ISSUE:",
      "Exporting a report with an empty title crashes.",
      "",
      "INSTRUCTIONS:",
      "Now, you're going to solve this issue on your own. Note however that you cannot use any interactive session commands (e.g. python, vim) in this environment.",
      "When you're satisfied with all of the changes you've made, you can submit them.",
    ].join("\n");
    expect(humanPart(task).text).toContain("Exporting a report with an empty title crashes.");
    expect(humanPart(task).text).not.toContain("interactive session");
    expect(failureTexts([{ user: task }])).toEqual([]);
  });

  it("reads a task resumption notice as an interruption, not a failure", () => {
    const notice =
      "[TASK RESUMPTION] This task was interrupted 3 minutes ago. It may or may not be complete, so please reassess the task context.";
    expect(injectedKind(notice)).toBe("interrupt");
    expect(failureTexts([{ user: "Fix the header." }, { user: notice }])).toEqual([]);
  });
});

describe("where the work stands", () => {
  const WORDS = [
    "reader",
    "writer",
    "quoting",
    "headers",
    "footer",
    "paging",
    "sorting",
    "filters",
    "locale",
    "timezone",
  ];
  // Messages differ in words (a signature ignores numbers): `feat: add the <word> to the <word> export`.
  const message = (n: number) => `feat: add the ${WORDS[n % 10]!} to the ${WORDS[Math.floor(n / 10)]!} export`;
  const commit = (n: number): Step => ({
    bash: {
      command: `git commit -am "${message(n)}"`,
      output: `[main ${(0xabc1230 + n).toString(16)}] ${message(n)}\n 1 file changed`,
    },
  });

  it("takes commits and the agent's last words from the kept messages into Completed and Current State", () => {
    const turns = turnsOf([
      { user: "Build the export in steps, committing each." },
      commit(1),
      { assistant: "Step one is committed; the CSV writer comes next." },
      commit(2),
      { assistant: "Done: the export writes CSV with quoted names and is committed." },
    ]);
    const cut = turns.findIndex((t) => t.text.startsWith("Step one"));
    const s = extractSections(turns.slice(0, cut + 1), { after: turns.slice(cut + 1) });
    expect(s.completed.map((f) => f.text)).toEqual([
      expect.stringContaining(message(1)),
      expect.stringContaining(message(2)),
    ]);
    expect(s.state[0]!.text).toBe('latest request: "Build the export in steps, committing each."');
    expect(s.state[1]!.text).toContain("writes CSV with quoted names");
    // The kept messages never add to what the span itself records as edited or failed.
    expect(s.failures).toEqual([]);
  });

  it("keeps the latest commits when the budget cannot hold them all", () => {
    const steps = Array.from({ length: 30 }, (_, i) => commit(i));
    const s = extractSections(turnsOf([{ user: "Commit each step." }, ...steps]));
    expect(s.completed).toHaveLength(30);
    const completed = sectionOf(renderSections(s, 500).markdown, "Completed");
    expect(completed).toContain(message(29));
    expect(completed).not.toContain(message(0));
  });
});

describe("Completed: what the agent reports it did", () => {
  it("keeps the report's past-tense list items, also inside a completion result, never from code", () => {
    const turns = turnsOf([
      { user: "Make the text readable in dark mode." },
      {
        assistant: [
          "<attempt_completion>",
          "<result>",
          "Dark mode text is fixed. **Files Updated:**",
          "1. **app/globals.css**",
          "   - Added dark variants to the subtitle class",
          "   - Check the contrast in the footer later",
          "</result>",
          "</attempt_completion>",
        ].join("\n"),
      },
      { assistant: "Example:\n```md\n- Added nothing real here in a code sample\n```" },
    ]);
    const done = extractSections(turns).completed.map((f) => f.text);
    expect(done).toEqual(["reported: Added dark variants to the subtitle class"]);
  });
});

describe("Completed: one report per request", () => {
  it("keeps the last report before the next request, the items that name the file they changed", () => {
    const turns = turnsOf([
      { user: "Add a settings page." },
      { assistant: "Done so far:\n- Added a draft settings route\n- Added placeholder text" },
      {
        assistant: [
          "Summary:",
          "- Added the settings page with three fields",
          "- Improved the wording of the labels",
          "- Updated `src/routes.ts` to register the page",
        ].join("\n"),
      },
      { user: "Now add a reset button to it." },
      { assistant: "- Added a reset button to the settings page\n- Tweaked spacing around it" },
    ]);
    const done = extractSections(turns).completed.map((f) => f.text);
    // Items that name no file (`Added a reset button to the settings page`) cannot be told from details.
    expect(done).toEqual(["reported: Updated `src/routes.ts` to register the page"]);
  });
});

describe("Completed: a repository's first commit", () => {
  it("names the hash git prints for a root commit", () => {
    const turns = turnsOf([
      { user: "Commit the project." },
      {
        bash: {
          command: 'git add . && git commit -m "feat: initialize the companion"',
          output: "[main (root-commit) 5c33685] feat: initialize the companion\n 12 files changed",
        },
      },
    ]);
    const done = extractSections(turns).completed.map((f) => f.text);
    expect(done).toEqual(["commit 5c33685: feat: initialize the companion"]);
  });
});

describe("Current State", () => {
  it("keeps the report that closed the last work when a question follows, without narration", () => {
    const turns = turnsOf([
      { user: "Make unranked players grey." },
      {
        edit: { file: "bot/config.py", old: 'UNRANKED = "#000000"', new: 'UNRANKED = "#2B2D31"' },
        say: "Let me update the colour table.",
      },
      { assistant: "Done. The grey #2B2D31 is now the unranked colour in config.py." },
      { user: "How is the API key passed?" },
      { assistant: "Let me check the client. It is sent as a request header on every call." },
    ]);
    const state = extractSections(turns).state.map((f) => f.text);
    expect(state).toEqual([
      'latest request: "How is the API key passed?"',
      "Done. The grey #2B2D31 is now the unranked colour in config.py.",
      "It is sent as a request header on every call.",
    ]);
  });
});

describe("a SpecStory export whose message leaves a fence open", () => {
  it("still starts a turn at each speaker header after a rule", () => {
    const text = [
      "<!-- Generated by SpecStory -->",
      "",
      "_**User (2026-01-05 09:00:00Z)**_",
      "",
      "Split the parser into modules.",
      "",
      "---",
      "",
      "_**Agent (model-x)**_",
      "",
      "Phase 1 is reviewed. Commit message:",
      "```",
      "refactor: move the tokenizer to its own module",
      "```",
      "",
      "```",
      "",
      "---",
      "",
      "_**User (2026-01-05 09:05:00Z)**_",
      "",
      "Do not commit after each phase; continue until phase 3 is done.",
      "",
      "---",
      "",
      "_**Agent (model-x)**_",
      "",
      "Understood, continuing without commits.",
      "",
    ].join("\n");
    const t = parseText(text, "specstory-md");
    const users = t.turns.filter((x) => x.role === "user").map((x) => x.text.trim());
    expect(users).toEqual([
      "Split the parser into modules.",
      "Do not commit after each phase; continue until phase 3 is done.",
    ]);
    expect(t.turns.filter((x) => x.role === "assistant")).toHaveLength(2);
  });
});
