// The person's words and only theirs: a client handing the agent's own message back as the user's (aider's architect
// mode) is not the person speaking, and a harness's standing instructions go without taking the person's words along.
import { describe, expect, it } from "vitest";

import { extractSections } from "../../src/transcript/extraction/extract.js";
import { echoesAgent, humanPart } from "../../src/transcript/extraction/human.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { TurnSink } from "../../src/transcript/formats/turns.js";

const PLAN = [
  "To add the verbose flag:",
  "",
  '1. In `cli.py`, add an argparse option `--verbose` with `action="store_true"`.',
  "2. Pass `args.verbose` to `process_files()`.",
  "3. In `process_files()`, print each file name before processing it when verbose is set.",
];

/** An aider chat history in architect mode: the architect's plan, then the editor given the plan as its message. */
const ARCHITECT = [
  "# aider chat started at 2025-02-03 10:12:44",
  "",
  "> /home/dev/.local/bin/aider --architect  ",
  "> Aider v0.72.3  ",
  "> Main model: anthropic/claude-3-5-sonnet-20241022 with architect edit format, infinite output  ",
  "> Editor model: anthropic/claude-3-5-sonnet-20241022 with editor-diff edit format  ",
  "> Git repo: .git with 12 files  ",
  "",
  "#### Add a --verbose flag to the CLI that prints each file as it is processed. Don't change the default output.  ",
  "",
  ...PLAN,
  "",
  "> Tokens: 2.3k sent, 98 received. Cost: $0.0084 message, $0.0084 session.  ",
  "> Edit the files? (Y)es/(N)o [Yes]: y  ",
  "",
  ...PLAN.map((l) => (l ? `#### ${l}  ` : "#### <blank>  ")),
  "",
  "cli.py",
  "```python",
  "<<<<<<< SEARCH",
  '    parser.add_argument("paths", nargs="+")',
  "=======",
  '    parser.add_argument("paths", nargs="+")',
  '    parser.add_argument("--verbose", action="store_true")',
  ">>>>>>> REPLACE",
  "```",
  "",
  "> Tokens: 3.1k sent, 120 received.  ",
  "> Applied edit to cli.py  ",
  "> Commit 1a2b3c4 feat: add --verbose flag  ",
  "",
].join("\n");

describe("a user turn that repeats the agent", () => {
  it("reads aider's architect plan handed to the editor as the client's, not the person's", () => {
    const t = parseText(ARCHITECT, "aider-md");
    const users = t.turns.filter((x) => x.role === "user");
    expect(users.map((u) => u.kind)).toEqual(["message", "meta"]);
    const s = extractSections(t.turns, {});
    // Only the rule sentence is a standing instruction; the request beside it is not.
    expect(s.constraints.map((c) => c.text)).toEqual(["Don't change the default output."]);
  });

  it("reads a bare mode switch as no words of the person's", () => {
    const t = parseText(
      ARCHITECT.replace(
        "#### Add a --verbose",
        "#### /architect  \n> Main model: anthropic/claude-3-5-sonnet-20241022 with architect edit format  \n\n#### Add a --verbose",
      ),
      "aider-md",
    );
    const users = t.turns.filter((x) => x.role === "user");
    expect(users.map((u) => [u.kind, u.text.slice(0, 10)])).toEqual([
      ["meta", "/architect"],
      ["message", "Add a --ve"],
      ["meta", "To add the"],
    ]);
  });

  it("keeps the person's reply that quotes a little of the agent, and short replies", () => {
    const sink = new TurnSink("messages-json");
    const said = PLAN.join("\n");
    sink.turn({ role: "assistant", text: said });
    const quoting = sink.turn({
      role: "user",
      text: "You wrote 'print each file name before processing it' but keep it on stderr, and never print absolute paths or anything from the home directory.",
    });
    sink.turn({ role: "assistant", text: said });
    const short = sink.turn({ role: "user", text: "yes" });
    expect([quoting.kind, short.kind]).toEqual(["message", "message"]);
  });

  it("compares with what the agent said since the person last spoke, not earlier", () => {
    const sink = new TurnSink("messages-json");
    sink.turn({ role: "assistant", text: PLAN.join("\n") });
    sink.turn({ role: "user", text: "Go ahead." });
    const again = sink.turn({ role: "user", text: PLAN.join("\n") });
    expect(again.kind).toBe("message");
    expect(echoesAgent(PLAN.join("\n"), PLAN.join("\n"))).toBe(true);
    expect(echoesAgent(PLAN.join("\n"), undefined)).toBe(false);
  });
});

describe("a harness's standing instructions", () => {
  const TRAILER = "(Open file: n/a)\n(Current directory: /repo)\nbash-$";
  const TASK = [
    "We're currently solving the following issue within our repository. Here's the issue text:",
    "ISSUE:",
    "Exporting a report with an empty title crashes.",
    "",
    "INSTRUCTIONS:",
    "Now, you're going to solve this issue on your own. Your terminal session has started.",
    "IMPORTANT TIPS:",
    "1. Always start by trying to replicate the bug that the issues discusses.",
    "",
  ].join("\n");

  it("drops the block up to the shell prompt and keeps the words before and after it", () => {
    const got = humanPart(`${TASK}${TRAILER}\n\nAlso: never touch the fixtures under tests/data.`).text;
    expect(got).toContain("Exporting a report with an empty title crashes.");
    expect(got).toContain("never touch the fixtures under tests/data.");
    expect(got).not.toMatch(/replicate the bug|terminal session|Current directory|bash-\$/);
  });

  it("drops the block to the end when the harness wrote no shell prompt", () => {
    const got = humanPart(TASK).text;
    expect(got).toContain("Exporting a report with an empty title crashes.");
    expect(got).not.toContain("replicate the bug");
  });

  it("keeps an INSTRUCTIONS heading the person wrote", () => {
    const mine = "Set up the release job.\n\nINSTRUCTIONS:\n- use pnpm, not npm\n- never push tags from CI";
    expect(humanPart(mine).text).toContain("never push tags from CI");
  });
});
