// Who wrote a user turn: one table of injected text kinds, applied by the turn sink to every format.
import { describe, expect, it } from "vitest";

import { humanPart, injectedKind } from "../../src/transcript/extraction/human.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { TurnSink } from "../../src/transcript/formats/turns.js";

describe("injectedKind", () => {
  const cases: [string, string, ReturnType<typeof injectedKind>][] = [
    ["an interruption", "[Request interrupted by user]", "interrupt"],
    ["an interruption during a tool", "[Request interrupted by user for tool use]", "interrupt"],
    ["an unknown skill", "Unknown skill: export", "client-error"],
    ["a CI event", "<ci-monitor-event>PR #3 has 2 new review comments:\n- fix it</ci-monitor-event>", "ci"],
    ["a reminder", "<system-reminder>Plan first.</system-reminder>", "system"],
    ["IDE context", "<environment_details>\n# VSCode Visible Files\na.ts\n</environment_details>", "system"],
    ["Codex environment", "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>", "system"],
    ["AGENTS.md", "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>", "system"],
    ["local command output", "<local-command-stdout>Set model to opus</local-command-stdout>", "command-output"],
    [
      "a slash command echo",
      "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>",
      "command-output",
    ],
    [
      "a shell run from the prompt",
      "<bash-input>git fetch</bash-input>\n<bash-stdout></bash-stdout>",
      "command-output",
    ],
    ["a skill document", "Base directory for this skill: /x/skills/review\n\n# Review\n- Always check errors", "skill"],
    [
      "a skill with front matter",
      "---\nname: resolve-reviews\ndescription: resolve all review comments\n---\n# Steps",
      "skill",
    ],
    ["a Codex skill block", "<skill>\n<name>review</name>\n<path>/x/SKILL.md</path>\n# Review\n</skill>", "skill"],
    [
      "a client error",
      "[ERROR] You did not use a tool in your previous response! Please retry with a tool use.",
      "client-error",
    ],
    ["hook feedback", "Stop hook feedback:\nrun the linter", "hook"],
    ["the person", "Never edit config/prod.yaml, and use pnpm.", undefined],
    ["the person with a reminder appended", "Fix the login bug.\n<system-reminder>x</system-reminder>", undefined],
    [
      "a Cline task",
      "<task>\nMake the header sticky.\n</task>\n<environment_details>x</environment_details>",
      undefined,
    ],
  ];
  for (const [name, text, want] of cases) it(name, () => expect(injectedKind(text)).toBe(want));

  it("keeps the person's words and drops the injected blocks around them", () => {
    expect(
      humanPart("<task>\nMake the header sticky.\n</task>\n<environment_details>x</environment_details>").text,
    ).toBe("Make the header sticky.");
    expect(humanPart("Fix the login bug.\n<system-reminder>Plan first.</system-reminder>").text).toBe(
      "Fix the login bug.",
    );
  });
});

describe("the turn sink", () => {
  it("makes an injected user turn meta and leaves the person's turns, assistant turns and sidechains alone", () => {
    const sink = new TurnSink("messages-json");
    const injected = sink.turn({ role: "user", text: "[Request interrupted by user]" });
    const person = sink.turn({ role: "user", text: "Use pnpm, not npm." });
    const agent = sink.turn({ role: "assistant", text: "<system-reminder>echo</system-reminder>" });
    const sub = sink.turn({ role: "user", text: "<system-reminder>x</system-reminder>", sidechain: true });
    expect([injected.kind, person.kind, agent.kind, sub.kind]).toEqual(["meta", "message", "message", "message"]);
  });

  it("applies to every format: a Codex rollout's environment context is meta", () => {
    const rec = (role: string, text: string) =>
      JSON.stringify({
        timestamp: "2026-01-01T00:00:00Z",
        type: "response_item",
        payload: { type: "message", role, content: [{ type: "input_text", text }] },
      });
    const text = [
      JSON.stringify({ timestamp: "2026-01-01T00:00:00Z", type: "session_meta", payload: { id: "s1", cwd: "/repo" } }),
      rec("user", "<environment_context>\n<cwd>/repo</cwd>\n</environment_context>"),
      rec("user", "Add a health check endpoint."),
    ].join("\n");
    const t = parseText(`${text}\n`, "codex-rollout-jsonl");
    const users = t.turns.filter((x) => x.role === "user");
    expect(users.map((u) => u.kind)).toEqual(["meta", "message"]);
  });
});
