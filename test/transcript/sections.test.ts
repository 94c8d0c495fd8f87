// Every summary section holds only its kind: failures the session hit, what the person typed, the latest plan,
// readable metrics and single bullets; each bad line class of real sessions stays out and the good lines stay in.
import { describe, expect, it } from "vitest";

import { extractSections } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { clipWords, wholeSentences } from "../../src/transcript/rendering/clip.js";
import { renderSections } from "../../src/transcript/rendering/render.js";
import { claudeCodeSession, developmentSession, type Step } from "../helpers/session.js";

const sectionOf = (md: string, title: string): string => md.split(`## ${title}\n`)[1]?.split("\n## ")[0] ?? "";

function summarize(steps: Step[]) {
  const t = parseText(claudeCodeSession(steps), "claude-code-jsonl");
  const s = extractSections(t.turns, { cwd: t.cwd });
  return { s, md: renderSections(s, 50_000).markdown, turns: t.turns };
}

const LONG_REQUEST = [
  "Port the billing export to the new reporting service so finance can download monthly statements.",
  "The current exporter writes CSV by hand and breaks on commas inside customer names, which finance keeps hitting.",
  "Keep the column order exactly as it is today because their spreadsheet macros depend on it.",
  "There is also an old cron job on the reporting box that nobody remembers setting up and it may be related.",
  "Do not touch the invoices table schema, another team migrates it next week.",
  "Finance mostly opens the files in spreadsheet software on laptops that are a few years old, so size matters a bit.",
  "Never send statements by email from this service.",
].join(" ");

const noisy: Step[] = [
  { user: LONG_REQUEST },
  // Injected user texts: a reminder, a CI event, an interruption, a client error, command output, a skill document.
  { user: "<system-reminder>The TodoWrite tool hasn't been used recently. Must always plan.</system-reminder>" },
  {
    user: "<ci-monitor-event>acme/billing PR #12 has 2 new review comments:\n- bot on src/export.ts: never log PII</ci-monitor-event>",
  },
  { user: "[Request interrupted by user for tool use]" },
  { user: "Unknown skill: export" },
  { user: "<local-command-stdout>Set model to opus and saved as your default</local-command-stdout>" },
  {
    user: "Base directory for this skill: /home/dev/.claude/skills/brainstorm\n\n# Brainstorm\n\n- Cover: architecture, components, data flow, error handling, testing\n- You must never skip the design review",
  },
  // A person's message with a reminder appended: the person's words stay.
  {
    user: "Use streaming writes for the CSV, not string concatenation.\n<system-reminder>Be concise.</system-reminder>",
  },
  // Output that carries error words without any error: a file read, exec bookkeeping, deprecation warnings.
  {
    read: {
      file: "src/export.ts",
      lines: [
        "export class ExportError extends Error {",
        "  // error handling for invalid rows",
        "  throw new Error('invalid row');",
      ],
    },
  },
  {
    bash: {
      command: "npm install csv-stringify",
      output:
        "npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory. Do not use it.\nadded 3 packages in 2s",
    },
  },
  {
    tool: {
      name: "exec_command",
      input: { cmd: "node scripts/check.js" },
      output: "Chunk ID: 80b6ae\nWall time: 0.4 seconds\nProcess exited with code 0\nOutput:\ncheck ok",
    },
  },
  // Real failures: a failed tool call, a runtime error in a test run, an error the person pasted.
  {
    tool: {
      name: "Write",
      input: { file_path: "/home/dev/docs-site/src/export.ts", content: "x" },
      output: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
      error: true,
    },
  },
  { user: "Running it by hand I get KeyError: 'customer_name' on the second row" },
  { assistant: "- I'll use csv-stringify instead of string concatenation because it quotes commas correctly." },
  {
    bash: {
      command: "pnpm vitest run",
      output: " Test Files  1 passed (1)\n      Tests  4 passed (4)\n   Duration  2.87s (transform 983ms, setup 1.02s)",
    },
  },
  { bash: { command: "time ./estimate.sh", output: "Time 0 363 s estimated (): 1 s" } },
];

describe("Failures", () => {
  const { s, md } = summarize([...developmentSession(), ...noisy]);
  const failures = sectionOf(md, "Failures");

  it("keeps errors the session hit, whole", () => {
    expect(failures).toContain("TypeError: Cannot read properties of undefined (reading 'loc')");
    expect(failures).toContain("File has not been read yet");
    expect(failures).toContain("KeyError: 'customer_name'");
    expect(failures).toContain("Unknown skill: export");
  });

  it("leaves out read files, exec bookkeeping, warnings and skill bullets", () => {
    for (const bad of [
      "throw new Error",
      "error handling for invalid rows",
      "ExportError",
      "Chunk ID",
      "npm warn",
      "Cover: architecture",
    ])
      expect(failures).not.toContain(bad);
    expect(s.failures.every((f) => !f.text.startsWith("- "))).toBe(true);
  });

  it("reads errors from a log the session's server wrote, not from a failed listing's file names", () => {
    const r = summarize([
      { user: "Check the dev server." },
      {
        bash: {
          command: "tail -40 /tmp/vite.log",
          output: "  VITE ready\n6:15:26 PM [vite] TypeError: Cannot read properties of undefined (reading 'filter')",
        },
      },
      { bash: { command: "grep -rln zone src | head", output: "router.tsx\nApp.tsx\nstores/zone.ts", error: true } },
    ]);
    const texts = r.s.failures.map((f) => f.text);
    expect(texts.some((t) => t.includes("(reading 'filter')"))).toBe(true);
    expect(texts).not.toContain("router.tsx");
  });

  it("links a failure to the nearby edit of the file it names", () => {
    const loc = s.failures.find((f) => f.text.includes("(reading 'loc')"))!;
    expect(loc.remediation).toMatch(/src\/sitemap\/build\.ts was edited/);
  });

  it("never links a failure to an edit far later or of another file", () => {
    const filler: Step[] = Array.from({ length: 20 }, (_, i) => ({ bash: { command: `ls dir${i}`, output: "a b" } }));
    const steps: Step[] = [
      { user: "Fix the importer." },
      {
        bash: {
          command: "pnpm test",
          output: "FAIL src/importer.test.ts\n  RangeError: Invalid time value (src/importer.ts:4:1)",
          error: true,
        },
      },
      { edit: { file: "src/unrelated.ts", old: "a", new: "b" } },
      ...filler,
      { edit: { file: "src/importer.ts", old: "a", new: "b" } },
    ];
    const r = summarize(steps);
    const f = r.s.failures.find((x) => x.text.includes("RangeError"))!;
    expect(f).toBeDefined();
    expect(f.remediation).toBeUndefined();
  });
});

describe("User Constraints", () => {
  const { s, md } = summarize([...developmentSession(), ...noisy]);
  const constraints = sectionOf(md, "User Constraints");

  it("holds only what the person typed", () => {
    expect(constraints).toContain("Never edit config/prod.yaml");
    for (const bad of [
      "Request interrupted",
      "Unknown skill",
      "ci-monitor-event",
      "never log PII",
      "system-reminder",
      "Be concise",
      "Set model to",
      "Base directory",
      "Brainstorm",
      "TodoWrite tool",
    ])
      expect(constraints).not.toContain(bad);
  });

  it("keeps a long message as whole sentences, never cut mid-word", () => {
    const long = s.constraints.find((c) => c.text.includes("Do not touch the invoices table schema"))!;
    expect(long.text.length).toBeLessThan(LONG_REQUEST.length);
    expect(long.text).toContain("Do not touch the invoices table schema, another team migrates it next week.");
    expect(long.text).toContain("Never send statements by email from this service.");
    for (const part of long.text.split(" … ")) expect(LONG_REQUEST).toContain(part.replace(/ …$/, ""));
  });

  it("records an interruption as an open question until the person makes a new request", () => {
    // Here the person's next message (streaming writes) answered the interruption: it is not open any more.
    expect(sectionOf(md, "Blockers / Open Questions")).not.toContain("Request interrupted by user");
    const stopped = summarize([{ user: "Port the export." }, { user: "[Request interrupted by user for tool use]" }]);
    expect(sectionOf(stopped.md, "Blockers / Open Questions")).toContain("Request interrupted by user");
  });
});

describe("Metrics and Decisions", () => {
  const { md } = summarize([...developmentSession(), ...noisy]);

  it("prints metrics as name: value unit (context), without fragments", () => {
    const metrics = sectionOf(md, "Metrics");
    expect(metrics).toContain("- tests: 4 passed (pnpm vitest run)");
    expect(metrics).toContain("- test time: 2.87 s (pnpm vitest run)");
    expect(metrics).not.toContain("()");
    expect(metrics).not.toContain("estimated");
    for (const line of metrics.split("\n").filter((l) => l.startsWith("- "))) expect(line).toMatch(/^- [a-z ]+: \d/);
  });

  it("has no double bullets", () => {
    const decisions = sectionOf(md, "Decisions Made");
    expect(decisions).toContain("I'll use csv-stringify instead of string concatenation");
    expect(md).not.toMatch(/^- - /m);
  });
});

describe("Current State and Next Steps", () => {
  it("moves an item done later to Completed and out of Next Steps (todo_write merges)", () => {
    const steps: Step[] = [
      { user: "Add the export endpoint." },
      {
        tool: {
          name: "todo_write",
          input: {
            merge: false,
            todos: [
              { id: "1", content: "Wire the export endpoint", status: "in_progress" },
              { id: "2", content: "Document the endpoint", status: "pending" },
            ],
          },
          output: "ok",
        },
      },
      { tool: { name: "todo_write", input: { merge: true, todos: [{ id: "1", status: "completed" }] }, output: "ok" } },
      { assistant: "The endpoint is wired; documenting it next." },
    ];
    const { s, md } = summarize(steps);
    expect(s.next.map((f) => f.text)).toEqual(["Document the endpoint (pending)"]);
    expect(sectionOf(md, "Completed")).toContain("done: Wire the export endpoint");
  });

  it("reads plan markup an export leaves in the agent's text, and keeps it out of Current State", () => {
    const steps: Step[] = [
      { user: "Polish the settings page." },
      { assistant: "Tool use: **todo_write** • Todo List\n\n- [x] Move the save button\n- [ ] Add the dark theme\n" },
      { assistant: "Tool use: **todo_write** • Todo List\n\n- [x] Move the save button\n- [x] Add the dark theme\n" },
      { assistant: "Both settings changes are in place and the page renders." },
    ];
    const { s, md } = summarize(steps);
    expect(s.next).toEqual([]);
    expect(sectionOf(md, "Completed")).toContain("done: Add the dark theme");
    expect(sectionOf(md, "Current State")).toContain("Both settings changes are in place");
    expect(md).not.toContain("Tool use:");
  });

  it("an update_plan item still open stays in Next Steps with its status", () => {
    const steps: Step[] = [
      { user: "Fix the crawler." },
      {
        tool: {
          name: "update_plan",
          input: {
            plan: [
              { step: "Reproduce the crawl failure", status: "completed" },
              { step: "Patch the route", status: "in_progress" },
            ],
          },
          output: "Plan updated",
        },
      },
    ];
    const { s } = summarize(steps);
    expect(s.next.map((f) => f.text)).toEqual(["Patch the route (in_progress)"]);
    expect(s.completed.map((f) => f.text)).toContain("done: Reproduce the crawl failure");
  });
});

describe("clipping", () => {
  it("cuts before an open parenthesis and at a word, with an ellipsis", () => {
    const line = "TypeError: Cannot read properties of undefined (reading 'loc') at buildSitemap in the builder";
    const c = clipWords(line, 60);
    expect(c).toBe("TypeError: Cannot read properties of undefined…");
    expect(clipWords("short line", 60)).toBe("short line");
  });

  it("shortens a message by whole sentences", () => {
    const w = wholeSentences("First we plan. Then we build a thing. Never deploy on Fridays.", 50);
    expect(w).toBe("First we plan. … Never deploy on Fridays.");
  });
});
