// Errors and reverts read from commands, not from text that only mentions them: a clean run of another file whose
// name ends like the failing one settles nothing, and a file written by a heredoc is not a run.
import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { eventDrafts } from "../../src/memory/events.js";
import { sessionEvents } from "../../src/transcript/events/events.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

const sectionsOf = (steps: Step[]) => {
  const t = parseText(claudeCodeSession(steps), "claude-code-jsonl");
  return extractSections(t.turns, { cwd: t.cwd });
};

const failing = {
  command: "mypy src/app.py",
  output: 'src/app.py:3: error: Name "cfg" is not defined  [name-defined]\nFound 1 error in 1 file',
  error: true,
};

describe("an error and the clean runs after it", () => {
  it("a clean run of a different file whose name ends with the failing one leaves it open", () => {
    const s = sectionsOf([
      { user: "Start the app." },
      { bash: failing },
      { bash: { command: "python -m myapp.py --check", output: "ok" } },
    ]);
    const f = s.failures.find((x) => x.text.includes("is not defined"))!;
    expect(f).toBeDefined();
    expect(f.resolved).toBeUndefined();
  });

  it("a heredoc that writes the failing file is not a clean run of it", () => {
    const s = sectionsOf([
      { user: "Start the app." },
      { bash: failing },
      { bash: { command: "cat > notes.md <<'EOF'\nrun mypy on app.py again later\nEOF", output: "" } },
    ]);
    const f = s.failures.find((x) => x.text.includes("is not defined"))!;
    expect(f.resolved).toBeUndefined();
  });

  it("a later clean run of the same file still resolves it", () => {
    const s = sectionsOf([
      { user: "Start the app." },
      { bash: failing },
      { bash: { command: "python src/app.py", output: "ok" } },
    ]);
    expect(s.failures.find((x) => x.text.includes("is not defined"))!.resolved).toBeDefined();
  });
});

describe("a commit the agent only suggests", () => {
  const turn = (id: string, role: Turn["role"], text: string, over: Partial<Turn> = {}): Turn => ({
    id,
    index: Number(id.slice(1)),
    role,
    kind: "message",
    text,
    tool_calls: [],
    tool_results: [],
    ...over,
  });
  const span: Turn[] = [
    turn("t0", "user", "How do I squash my WIP commit into this one?"),
    turn("t1", "assistant", "Amend it:", {
      tool_calls: [
        { id: "s1", name: "Bash", input: { command: 'git add .\ngit commit --amend -m "your message here"' } },
      ],
    }),
    turn("t2", "user", "Thanks, do we need to update the docs?"),
  ];

  it("is not a completed commit when the command never ran", () => {
    const s = extractSections(span);
    expect(s.completed.map((c) => c.text).join("\n")).not.toContain("your message here");
  });

  it("a commit that ran and printed its hash is still completed", () => {
    const ran = span.map((t) =>
      t.id === "t1"
        ? { ...t, tool_results: [{ call_id: "s1", output: "[main 1a2b3c4] your message here", is_error: false }] }
        : t,
    );
    expect(extractSections(ran).completed.map((c) => c.text)).toContain("commit 1a2b3c4: your message here");
  });
});

describe("a clean run of a different script or test file", () => {
  const tsError = {
    command: "npm run build",
    output: "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
    error: true,
  };

  it("a clean lint does not settle a failed build", () => {
    const s = sectionsOf([
      { user: "Fix the build." },
      { bash: tsError },
      { bash: { command: "npm run lint", output: "All files pass linting." } },
    ]);
    expect(s.failures.find((x) => x.text.includes("TS2322"))!.resolved).toBeUndefined();
  });

  it("a clean run of another test file does not settle the failing one", () => {
    const s = sectionsOf([
      { user: "Fix the parser test." },
      {
        bash: {
          command: "python -m pytest tests/test_parser.py",
          output: "E   AssertionError: assert 3 == 4\nFAILED tests/test_parser.py::test_count - AssertionError",
          error: true,
        },
      },
      { bash: { command: "python -m pytest tests/test_lexer.py", output: "5 passed in 0.1s" } },
    ]);
    expect(s.failures.find((x) => x.text.includes("assert 3 == 4"))!.resolved).toBeUndefined();
  });

  it("the same build with other flags, or the whole suite, still settles it", () => {
    const s = sectionsOf([
      { user: "Fix the build." },
      { bash: tsError },
      { bash: { command: "npm run build --silent", output: "done" } },
    ]);
    expect(s.failures.find((x) => x.text.includes("TS2322"))!.resolved).toBeDefined();
    const t = sectionsOf([
      { user: "Fix the parser test." },
      {
        bash: {
          command: "python -m pytest tests/test_parser.py",
          output: "E   AssertionError: assert 3 == 4",
          error: true,
        },
      },
      { bash: { command: "python -m pytest", output: "12 passed in 0.4s" } },
    ]);
    expect(t.failures.find((x) => x.text.includes("assert 3 == 4"))!.resolved).toBeDefined();
  });
});

describe("a revert the agent only suggests", () => {
  const turn = (id: string, role: Turn["role"], text: string, over: Partial<Turn> = {}): Turn => ({
    id,
    index: Number(id.slice(1)),
    role,
    kind: "message",
    text,
    tool_calls: [],
    tool_results: [],
    ...over,
  });
  const span: Turn[] = [
    turn("t0", "user", "Add a retry to the client."),
    turn("t1", "assistant", "", {
      tool_calls: [{ id: "e", name: "Edit", input: { file_path: "src/client.ts", old_string: "a", new_string: "b" } }],
      tool_results: [{ call_id: "e", output: "The file has been updated.", is_error: false }],
    }),
    turn("t2", "user", "How would I throw that away if I don't like it?"),
    turn("t3", "assistant", "Run this:", {
      tool_calls: [{ id: "s", name: "Bash", input: { command: "git checkout -- src/client.ts" } }],
    }),
  ];

  it("leaves the file changed, not reverted, when the command never ran", () => {
    const s = extractSections(span);
    expect(s.files["src/client.ts"]!.map((o) => o.op).join(" ")).not.toMatch(/reverted/);
    expect(s.state.map((f) => f.text).join("\n")).not.toContain("back to its committed state");
  });

  it("is no dead end in memory", () => {
    expect(eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "dead_end")).toEqual([]);
  });
});

describe("a command that only mentions a commit", () => {
  it("is no commit event: only the commit that ran counts", () => {
    const t = parseText(
      claudeCodeSession([
        { user: "Add the health endpoint." },
        { edit: { file: "/repo/src/health.ts", old: "a", new: "b" } },
        { bash: { command: 'git commit -m "feat: start"', output: "[main 1a2b3c4] feat: start" } },
        { edit: { file: "/repo/src/ready.ts", old: "a", new: "b" } },
        {
          bash: {
            command: "cat > CONTRIBUTING.md <<'EOF'\nWhen done, run git commit -m \"your message\"\nEOF",
            output: "",
          },
        },
        { bash: { command: 'echo "next: git commit -m wip"', output: "next: git commit -m wip" } },
      ]),
      "claude-code-jsonl",
    ).turns;
    const commits = sessionEvents(t).filter((e) => e.type === "commit");
    expect(commits).toHaveLength(1);
    const done = extractSections(t).completed.map((c) => c.text);
    expect(done.filter((d) => d.startsWith("commit"))).toEqual(["commit 1a2b3c4: feat: start"]);
  });
});
