// Where a session ends, from its events: what the last checks said, edits no check has seen since, the last commit
// and its push; an agent line that only announces its next action is not state.
import { describe, expect, it } from "vitest";

import { endFacts, onlyAnnounces, tidyOpen, tidyState } from "../../src/transcript/events/end-state.js";
import { eventState, sessionEvents } from "../../src/transcript/events/events.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

const turnsOf = (steps: Step[]) => parseText(claudeCodeSession(steps), "claude-code-jsonl").turns;
const endOf = (steps: Step[]) => endFacts(eventState(sessionEvents(turnsOf(steps))));

describe("end state from events", () => {
  it("says what the latest checks gave, latest first, and leaves out installs and git", () => {
    const end = endOf([
      { user: "Make the exporter handle empty rows." },
      { bash: { command: "npm install", output: "added 3 packages" } },
      { bash: { command: "cd /repo && npm run build 2>&1 | tail -3", output: "build ok" } },
      { bash: { command: "npm test", output: "FAIL src/x.test.ts\nError: expected 2 rows", error: true } },
      { bash: { command: "git status --short", output: " M src/x.ts" } },
    ]);
    expect(end.state[0]!.text).toMatch(/^last runs: `npm test` failed \(\S+\); `npm run build` passed/);
    expect(end.state[0]!.text).not.toMatch(/install|git status/);
    expect(end.next).toEqual([]);
  });

  it("a failed run of one test file is not the state once the whole suite passed after the fix", () => {
    const fixed = endOf([
      { user: "Fix the failing row test." },
      {
        bash: {
          command: "npx vitest run test/rows.test.ts",
          output: "FAIL test/rows.test.ts\nAssertionError: expected 1 to be 2",
          error: true,
        },
      },
      { edit: { file: "/repo/src/rows.ts", old: "a", new: "b" } },
      { bash: { command: "npx vitest run", output: "Test Files 3 passed\nTests 12 passed" } },
    ]);
    expect(fixed.state[0]!.text).toMatch(/^last runs: `npx vitest run` passed \(\S+\)$/);
    // A failure after the passing suite, or of another target, still stands.
    const after = endOf([
      { user: "Fix the failing row test." },
      { bash: { command: "npx vitest run", output: "Tests 12 passed" } },
      { edit: { file: "/repo/src/rows.ts", old: "a", new: "b" } },
      { bash: { command: "npx vitest run test/rows.test.ts", output: "FAIL test/rows.test.ts", error: true } },
      { bash: { command: "make deploy", output: "make: *** [deploy] Error 1", error: true } },
      { bash: { command: "make", output: "ok" } },
    ]);
    expect(after.state[0]!.text).toMatch(/`make deploy` failed/);
    expect(after.state[0]!.text).toMatch(/`npx vitest run test\/rows\.test\.ts` failed/);
  });

  it("asks for a rerun when code was edited after the latest check, naming the files", () => {
    const end = endOf([
      { user: "Fix the parser." },
      { bash: { command: "pytest -q tests/test_parse.py", output: "3 passed" } },
      { edit: { file: "/repo/src/parse.py", old: "a", new: "b" } },
      { edit: { file: "/repo/NOTES.md", old: "x", new: "y" } },
    ]);
    expect(end.next).toHaveLength(1);
    expect(end.next[0]!.text).toMatch(
      /^rerun `pytest -q tests\/test_parse\.py`: not rerun since the edits to `\S*src\/parse\.py`$/,
    );
  });

  it("code edited after the latest request with no check at all and no word after it is not checked", () => {
    const steps: Step[] = [
      { user: "Make every backend test use the sqlite URL." },
      { edit: { file: "/repo/backend/tests/conftest.py", old: "a", new: "b" } },
      { edit: { file: "/repo/NOTES.md", old: "x", new: "y" } },
    ];
    const end = endOf(steps);
    expect(end.next).toHaveLength(1);
    expect(end.next[0]!.text).toMatch(
      /^not checked: no test, build or run of the code after the edits to `\S*tests\/conftest\.py`$/,
    );
    // The person's word after the edits (they ran it themselves, or moved on) settles it either way.
    expect(endOf([...steps, { user: "ok it works now" }]).next).toEqual([]);
    // A check that ran after the edits leaves nothing to check.
    expect(endOf([...steps, { bash: { command: "pytest -q", output: "6 passed" } }]).next).toEqual([]);
  });

  it("asks for nothing when the check ran after the last edit", () => {
    const end = endOf([
      { user: "Fix the parser." },
      { edit: { file: "/repo/src/parse.py", old: "a", new: "b" } },
      { bash: { command: "pytest -q", output: "3 passed" } },
    ]);
    expect(end.next).toEqual([]);
  });

  it("names the last commit and whether it was pushed", () => {
    const commit = (msg: string, sha: string) => ({
      command: `git commit -am "${msg}"`,
      output: `[main ${sha}] ${msg}\n 1 file changed, 2 insertions(+)`,
    });
    const pushed = endOf([
      { user: "Commit and push." },
      { edit: { file: "/repo/a.ts", old: "a", new: "b" } },
      { bash: commit("fix: handle empty rows", "1a2b3c4") },
      { bash: { command: "git push origin main", output: "To github.com:x/y.git\n   0f0f0f0..1a2b3c4  main -> main" } },
    ]);
    expect(pushed.state.find((f) => f.text.startsWith("last commit"))!.text).toMatch(
      /^last commit `1a2b3c4` "fix: handle empty rows", pushed \(\S+\)$/,
    );
    const local = endOf([
      { user: "Commit it." },
      { edit: { file: "/repo/a.ts", old: "a", new: "b" } },
      { bash: commit("fix: handle empty rows", "1a2b3c4") },
    ]);
    expect(local.state.find((f) => f.text.startsWith("last commit"))!.text).toMatch(/not pushed in the session$/);
  });

  it("a dry-run push is not a push", () => {
    const end = endOf([
      { user: "Commit and push." },
      { edit: { file: "/repo/a.ts", old: "a", new: "b" } },
      { bash: { command: 'git commit -am "fix: x"', output: "[main 1a2b3c4] fix: x\n 1 file changed" } },
      {
        bash: {
          command: "git push --dry-run origin main",
          output: "To github.com:x/y.git\n   0f0f0f0..1a2b3c4  main -> main",
        },
      },
    ]);
    expect(end.state.find((f) => f.text.startsWith("last commit"))!.text).toMatch(/not pushed in the session$/);
  });

  it("keeps an announcement of the next action out of Current State and Next Steps", () => {
    expect(onlyAnnounces("I will view lines 55-80 of `PROGRESS.md` to see the remaining checklist items.")).toBe(true);
    expect(onlyAnnounces("Let me also check if we need to populate this field: Let me check the copy.")).toBe(true);
    expect(onlyAnnounces("I'll add the route. The tests pass now.")).toBe(false);
    expect(onlyAnnounces("The exporter now skips empty rows; 12 tests pass.")).toBe(false);
    const s = extractSections(
      turnsOf([
        { user: "Update the checklist." },
        { edit: { file: "/repo/PROGRESS.md", old: "[ ]", new: "[x]" } },
        { assistant: "I will view lines 55-80 of `PROGRESS.md` to see the remaining checklist items." },
      ]),
    );
    expect(s.state.map((f) => f.text).join("\n")).not.toContain("I will view lines");
  });

  it("the next steps the agent lists at the end stay; an announcement it went on to carry out does not", () => {
    const listed: Step[] = [
      { user: "Add the sitemap builder." },
      { edit: { file: "/repo/src/build.ts", old: "a", new: "b" } },
      { bash: { command: "npm test", output: "Tests 3 passed" } },
      {
        assistant:
          "The builder is in place and the 3 tests pass.\n\nNext steps:\n- I'll add the sitemap link to robots.txt\n- I will register the sitemap in Search Console",
      },
    ];
    const next = extractSections(turnsOf(listed)).next.map((f) => f.text);
    expect(next).toContain("I'll add the sitemap link to robots.txt");
    expect(next).toContain("I will register the sitemap in Search Console");
    const acted = extractSections(
      turnsOf([...listed, { edit: { file: "/repo/public/robots.txt", old: "a", new: "b" } }]),
    ).next.map((f) => f.text);
    expect(acted.join("\n")).not.toContain("I'll add the sitemap link");
  });

  it("a latest request nothing answered is the first next step; an answered one is not", () => {
    const asked = [
      { user: "Add logging to the catalog controller." },
      { edit: { file: "/repo/Controllers/CatalogController.cs", old: "a", new: "b" } },
      { assistant: "Added information and error logs to every controller method." },
      { user: "Can docker-compose build the image from Docker Hub instead of the local Dockerfile?" },
    ] satisfies Step[];
    const open = extractSections(turnsOf(asked)).next.map((f) => f.text);
    expect(open[0]).toBe(
      'not answered: the latest request "Can docker-compose build the image from Docker Hub instead of the local Dockerfile?"',
    );
    const answered = extractSections(
      turnsOf([...asked, { assistant: "Yes: replace `build: .` with `image: org/catalog:latest` in the service." }]),
    ).next.map((f) => f.text);
    expect(answered.join("\n")).not.toContain("not answered");
  });

  it("a short reply answers the latest request", () => {
    const next = extractSections(
      turnsOf([
        { user: "Add logging to the catalog controller." },
        { edit: { file: "/repo/Controllers/CatalogController.cs", old: "a", new: "b" } },
        { assistant: "Added information and error logs to every controller method." },
        { user: "Should the logs go to stderr?" },
        { assistant: "Yes, to stderr." },
      ]),
    ).next.map((f) => f.text);
    expect(next.join("\n")).not.toContain("not answered");
  });

  it("tidies client markup and repeated file names out of a state line, and drops one that was a tool call", () => {
    expect(
      tidyState(
        "Controllers\\CatalogController.cs Controllers\\CatalogController.cs Controllers\\CatalogController.cs The logging additions include information logs.",
      ),
    ).toBe("Controllers\\CatalogController.cs The logging additions include information logs.");
    expect(tidyState("</pre> This change removes the virtual environment entries.")).toBe(
      "This change removes the virtual environment entries.",
    );
    expect(tidyState("<execute_command> <command>cd /d c:/Users/TSB/choice [Response interrupted by user]")).toBe(
      undefined,
    );
  });

  it("keeps type arguments and markup quoted in inline code in a state line", () => {
    expect(tidyState("Return type of `load` is now `Promise<Config>` so callers await it.")).toBe(
      "Return type of `load` is now `Promise<Config>` so callers await it.",
    );
    expect(tidyState("The reader now returns Vec<u8> and the writer takes Option<String>.")).toBe(
      "The reader now returns Vec<u8> and the writer takes Option<String>.",
    );
    expect(tidyState("Wrapped the table in `<section>` and moved the caption into it.")).toBe(
      "Wrapped the table in `<section>` and moved the caption into it.",
    );
    expect(tidyState("`<div>` ok")).toBe("`<div>` ok");
  });

  it("keeps one line per open question and none cut inside inline code", () => {
    const open = tidyOpen([
      { text: "Would you like me to provide the command to run just the middleware tests?", turn: "t1" },
      { text: "Would you like me to provide the command to run just the middleware tests to verify them?", turn: "t1" },
      { text: "Either explicitly mock per-route OR guard with `data?.X ??", turn: "t2" },
      { text: "Should the export keep empty rows?", turn: "t3" },
    ]).map((f) => f.text);
    expect(open).toEqual([
      "Would you like me to provide the command to run just the middleware tests to verify them?",
      "Should the export keep empty rows?",
    ]);
  });

  it("a plan item marked in progress before the latest request is not the current state", () => {
    const planned: Step[] = [
      { user: "Set up the local dev environment." },
      { todos: [{ content: "Inspect the local startup paths", status: "in_progress" }] },
      { assistant: "Looking at how the backend and the frontend start locally." },
    ];
    const during = extractSections(turnsOf(planned)).state.map((f) => f.text);
    expect(during).toContain("in progress: Inspect the local startup paths");
    const later = extractSections(
      turnsOf([
        ...planned,
        { user: "Export this conversation to the logs folder and push it." },
        { assistant: "Exported the conversation to logs/final and pushed it." },
      ]),
    ).state.map((f) => f.text);
    expect(later.join("\n")).not.toContain("in progress:");
  });
});

describe("open at the end: work the session stopped in the middle of", () => {
  const nextOf = (jsonl: string) =>
    extractSections(parseText(jsonl, "claude-code-jsonl").turns).next.map((f) => f.text);
  const request = { user: "Copy the transcript into the repository and commit the polish." } satisfies Step;

  it("a last call that never returned is work still to do, with the agent's words for it", () => {
    const steps: Step[] = [
      request,
      { edit: { file: "/repo/README.md", old: "a", new: "b" } },
      {
        bash: { command: "cp ~/.gemini/logs/transcript.jsonl /repo/transcript.jsonl", output: "" },
        say: "I will copy the local transcript file into the project as `transcript.jsonl`.",
      },
    ];
    const lines = claudeCodeSession(steps).trimEnd().split("\n");
    // The session was cut before the copy's result came back: its last line is that result.
    const cut = lines.slice(0, -1).join("\n");
    const open = nextOf(cut);
    expect(open[0]).toMatch(
      /^stopped mid-work on the latest request "Copy the transcript into the repository and commit the polish\.": "I will copy the local transcript file into the project as `transcript\.jsonl`\." \(its last call has no result\)$/,
    );
    // A dev server started last returns nothing by design: the session did not stop in the middle of it.
    const served = claudeCodeSession([
      request,
      { edit: { file: "/repo/src/about.tsx", old: "a", new: "b" } },
      { bash: { command: "npm run dev", output: "" }, say: "Starting the dev server to check the page." },
    ])
      .trimEnd()
      .split("\n");
    expect(nextOf(served.slice(0, -1).join("\n")).join("\n")).not.toContain("stopped mid-work");
    // With the result there, nothing stopped.
    expect(nextOf(lines.join("\n")).join("\n")).not.toContain("stopped mid-work");
  });

  it("last words that only announce the next step are open; a closing report is not", () => {
    const announced = nextOf(
      claudeCodeSession([
        { user: "Add a Validate All action to the processing page." },
        { read: { file: "/repo/src/page.al", lines: ["page 50100 Processing {", "}"] } },
        { assistant: "The voucher number is not copied from the landing record. Let me first fix that, and then" },
      ]),
    );
    expect(announced[0]).toMatch(/^stopped mid-work on the latest request "Add a Validate All action/);
    expect(announced[0]).toContain(
      '"The voucher number is not copied from the landing record. Let me first fix that, and then"',
    );
    const reported = nextOf(
      claudeCodeSession([
        { user: "Add a Validate All action to the processing page." },
        { edit: { file: "/repo/src/page.al", old: "a", new: "b" } },
        { assistant: "Added the Validate All action; it validates every entry of the page." },
      ]),
    );
    expect(reported.join("\n")).not.toContain("stopped mid-work");
    // A report that ends on a list item without a full stop is whole.
    const listed = nextOf(
      claudeCodeSession([
        { user: "Push it." },
        {
          bash: { command: "git push origin main", output: "To github.com:o/r.git\n   1a2b3c4..4461fb5  main -> main" },
        },
        { assistant: "Pushed.\n- Commit: 4461fb5\n- Branch: main" },
      ]),
    );
    expect(listed.join("\n")).not.toContain("stopped mid-work");
  });

  it("a submitted patch or a question to the person is not stopped work", () => {
    const asked = nextOf(
      claudeCodeSession([
        request,
        { edit: { file: "/repo/src/a.ts", old: "a", new: "b" } },
        {
          tool: { name: "AskUserQuestion", input: { question: "Commit to main or a branch?" }, output: "" },
          say: "Which branch should the commit go to?",
        },
      ])
        .trimEnd()
        .split("\n")
        .slice(0, -1)
        .join("\n"),
    );
    expect(asked.join("\n")).not.toContain("stopped mid-work");
    // A subagent still at work when the session ended is work still to do, though its tool's name holds "ask".
    const delegated = nextOf(
      claudeCodeSession([
        request,
        { edit: { file: "/repo/src/export.ts", old: "a", new: "b" } },
        {
          tool: { name: "Task", input: { description: "Audit the exporter", prompt: "Audit it." }, output: "" },
          say: "Auditing the exporter in a subagent.",
        },
      ])
        .trimEnd()
        .split("\n")
        .slice(0, -1)
        .join("\n"),
    );
    expect(delegated[0]).toMatch(/^stopped mid-work .*\(its last call has no result\)$/);
  });

  it("the person's last message with no reply is open even when it is a client command with words", () => {
    const base: Step[] = [
      { user: "Implement the S5 slice." },
      { edit: { file: "/repo/app/page.tsx", old: "a", new: "b" } },
      { assistant: "S5 is implemented and its tests pass." },
    ];
    const open = nextOf(claudeCodeSession([...base, { user: "/ac in a new feature branch" }]));
    expect(open[0]).toBe('not answered: the last message "/ac in a new feature branch"');
    expect(nextOf(claudeCodeSession([...base, { user: "thanks!" }])).join("\n")).not.toContain("not answered");
    expect(nextOf(claudeCodeSession([...base, { user: "/clear" }])).join("\n")).not.toContain("not answered");
  });
});

describe("open at the end: a session that ends on a finished answer", () => {
  const nextOf = (steps: Step[]) =>
    extractSections(parseText(claudeCodeSession(steps), "claude-code-jsonl").turns).next.map((f) => f.text);
  const work: Step[] = [
    { user: "Fix the exporter for empty rows." },
    { edit: { file: "/repo/src/export.ts", old: "a", new: "b" } },
    { bash: { command: "npm test", output: "12 passed" } },
  ];

  it("a closing report is not stopped work, whatever its last sentence looks like", () => {
    for (const said of [
      "Fixed the exporter; the tests pass.\n\nLet me know if you want me to push it.",
      "Fixed the exporter. All 12 tests pass and the build is green",
      "Der Exporter ist repariert. Alle Tests sind grün",
      "Fixed the exporter. You can run it with:\n```\nnpm start\n```",
      "Fixed the exporter. I'll push it once you confirm.",
      "导出器已修复，所有测试都通过了",
    ])
      expect(nextOf([...work, { assistant: said }]).join("\n"), said).not.toContain("stopped mid-work");
    // Words that break off on a joining mark, or a colon with nothing after it, are still stopped work.
    for (const said of [
      "Fixed the row loop. The header and the footer still need the same guard,",
      "Now the header guard:",
      "行循环已修好。接下来修改表头：",
      "行循环已修好，表头也需要同样的检查，",
    ])
      expect(nextOf([...work, { assistant: said }])[0], said).toMatch(/^stopped mid-work/);
  });

  it("the person's thanks after the report is not a message left unanswered; an answer to a question is", () => {
    const done: Step[] = [...work, { assistant: "Fixed the exporter; the tests pass." }];
    for (const last of ["Great, that works!", "Thanks, that fixed it.", "Danke, funktioniert!", "merci beaucoup"])
      expect(nextOf([...done, { user: last }]).join("\n"), last).not.toContain("not answered");
    const asked: Step[] = [...work, { assistant: "The exporter is fixed. Should the header row be skipped too?" }];
    expect(nextOf([...asked, { user: "Great, that works!" }])[0]).toBe(
      'not answered: the last message "Great, that works!"',
    );
  });
});
