// Completed holds what delegated agents report they did: the commits and the list items of their reports, while
// a failed delegation and the agent's other tools add nothing.
import { describe, expect, it } from "vitest";

import { completed } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

function done(steps: Step[]): string[] {
  return completed(parseText(claudeCodeSession(steps), "claude-code-jsonl").turns).map((f) => f.text);
}

const REPORT = [
  "**Status: DONE**",
  "",
  "**Task 19 — FirstRunWizard shell**",
  "- Commit: `9d2f43f` — `web(wizard): FirstRunWizard shell + 3 step stubs`",
  "",
  "**What was done:**",
  "1. Removed all zone-only imports from App.tsx: `useZoneStore`, `ZoneMembersPanel`.",
  "2. Simplified the `<Outlet />` gate.",
].join("\n");

describe("completed: delegated agents' reports", () => {
  it("keeps the commits and the report items a delegated agent returns", () => {
    const got = done([
      { user: "Run Phase 4 with a subagent." },
      {
        tool: {
          name: "Task",
          input: { description: "Phase 4 — wizard shell", prompt: "Implement task 19" },
          output: REPORT,
        },
      },
    ]);
    expect(got).toEqual([
      "commit 9d2f43f: web(wizard): FirstRunWizard shell + 3 step stubs",
      "reported: Removed all zone-only imports from App.tsx: `useZoneStore`, `ZoneMembersPanel`.",
    ]);
  });

  it("ignores a failed delegation and the same text from another tool", () => {
    const got = done([
      { user: "Run Phase 4 with a subagent." },
      { tool: { name: "Task", input: { prompt: "Implement task 19" }, output: REPORT, error: true } },
      { read: { file: "docs/report.md", lines: REPORT.split("\n") } },
    ]);
    expect(got).toEqual([]);
  });
});

describe("commits that say nothing of the change", () => {
  it("leaves out a commit whose message is the agent's narration, and keeps the one that names the change", () => {
    const got = done([
      { user: "Convert the app to the T3 stack." },
      { edit: { file: "src/server.ts", old: "a", new: "b" } },
      {
        bash: {
          command: 'git commit -m "I\'ll help you continue the T3 app conversion based on the previous context."',
          output: "[main bd2c87e] I'll help you continue the T3 app conversion based on the previous context.",
        },
      },
      { edit: { file: "src/router.ts", old: "a", new: "b" } },
      {
        bash: {
          command: 'git commit -m "refactor: move the router to the server module"',
          output: "[main 66d344d] refactor: move the router to the server module",
        },
      },
    ]).filter((d) => d.startsWith("commit"));
    expect(got).toEqual(["commit 66d344d: refactor: move the router to the server module"]);
  });
});

describe("commits whose message opens like narration", () => {
  it("keeps a commit message that names the change, even when its first words could open a reply", () => {
    const got = done([
      { user: "Renew the certificates from the cron job." },
      { edit: { file: "deploy/cron.yaml", old: "a", new: "b" } },
      {
        bash: {
          command: 'git commit -m "Let\'s Encrypt certificates renew from the nightly cron job"',
          output: "[main 4f1c2aa] Let's Encrypt certificates renew from the nightly cron job",
        },
      },
    ]).filter((d) => d.startsWith("commit"));
    expect(got).toEqual(["commit 4f1c2aa: Let's Encrypt certificates renew from the nightly cron job"]);
  });
});
