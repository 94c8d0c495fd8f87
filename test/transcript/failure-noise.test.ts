// Failures holds errors the session hit, not lines that only carry an error's words: a person's question or plan
// about what they cannot find, a declined operation, a review comment about what could fail, a terminal warning,
// a routine named like an exception. Real errors in the same shapes stay.
import { describe, expect, it } from "vitest";

import { blockers, failures } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

const failureTexts = (steps: Step[]): string[] =>
  failures(parseText(claudeCodeSession(steps), "claude-code-jsonl").turns, undefined).map((f) => f.text);

describe("failures: what the person typed", () => {
  it("leaves out questions and plans about what the person cannot find or do", () => {
    const got = failureTexts([
      { user: "I can't find the customers in any page? Which will they be created in?" },
      { assistant: "They are created in the Economic Customer Mapping list." },
      {
        user: "I will test the create gl accounts later. You can commit these changes and push them. I can't find role center",
      },
      { user: "I want to select it from the Roles (9212, List). I can't do that right now." },
      {
        user: "It retrived 7 entries. I was expecting a bit more, but can't see the integration log's \"show record\" for the entries.",
      },
    ]);
    expect(got).toEqual([]);
  });

  it("keeps the errors the person reports, with or without an exception name", () => {
    const got = failureTexts([
      {
        user: "c:\\Users\\dev\\src\\Codeunits\\Cod51000.EconomicManagement.al(40,40): error AL0224: Expression expected",
      },
      { user: 'Getting this error : "The record in table Economic Integration Log already exists."' },
      { user: "The supplied field number '51000' cannot be found in the 'Economic Customer Mapping' table." },
      { user: "The requested operation cannot be performed in this context." },
      { user: "the program still doesnt run" },
      { user: "I marked the text and used the key combination and nothing happened" },
    ]);
    expect(got).toHaveLength(6);
    expect(got[0]).toMatch(/error AL0224/);
    expect(got.join("\n")).toMatch(/cannot be found in the 'Economic Customer Mapping' table/);
    expect(got.join("\n")).toMatch(/still doesnt run/);
  });
});

describe("failures: tool results that are not errors the session hit", () => {
  it("leaves out an operation the person declined, and keeps it among the blockers", () => {
    const steps: Step[] = [
      { user: "Update the middleware." },
      {
        tool: {
          name: "Edit",
          input: { file_path: "/repo/src/auth.ts", old_string: "a", new_string: "b" },
          output:
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
          error: true,
        },
      },
      {
        tool: {
          name: "execute_command",
          input: { command: "npm test" },
          output: "The user denied this operation and provided the following feedback:\nRun the unit tests only.",
          error: true,
        },
      },
    ];
    expect(failureTexts(steps)).toEqual([]);
    const turns = parseText(claudeCodeSession(steps), "claude-code-jsonl").turns;
    const held = blockers(turns, []).map((b) => b.text);
    expect(held).toEqual([
      expect.stringMatching(
        /^The user doesn't want to proceed with this tool use\. The tool use was rejected.*\(during Edit/,
      ),
      "The user denied this operation and provided the following feedback: (during execute_command: npm test)",
    ]);
  });

  it("leaves out a review comment about what could fail, keeps the error a command printed", () => {
    const review = [
      "The worker health server has no `'error'` event handler. If `listen()` fails (e.g., EADDRINUSE) or a runtime server error occurs, Node will emit an `error` event that can crash the process without a clear, consistent log/exit path.",
      "The deployment guide says the worker owns the subscriber for `/api/events/*`. Those statements cannot both be true. Narrow this boundary to background subscribers like `cacheInvalidator`.",
      "not itself prefixed with `NEXT_PUBLIC_`, so client code cannot read it",
    ].join("\n");
    const got = failureTexts([
      { user: "Address the review." },
      { bash: { command: "gh pr view 341 --comments", output: review, error: false } },
      {
        bash: {
          command: "node worker.js",
          output:
            "Error: listen EADDRINUSE: address already in use 127.0.0.1:48123\n1 SEARCH/REPLACE block failed to match!",
          error: true,
        },
      },
    ]);
    expect(got.join("\n")).not.toMatch(/Node will emit|cannot both be true|NEXT_PUBLIC_/);
    expect(got).toContain("Error: listen EADDRINUSE: address already in use 127.0.0.1:48123");
  });

  it("leaves out a terminal warning the command ran past, keeps a message that opens with its inability", () => {
    const got = failureTexts([
      { user: "Connect to the challenge." },
      {
        bash: {
          command: "python3 exploit.py",
          output:
            "Warning: _curses.error: setupterm: could not find terminfo database\n\nTerminal features will not be available.\n[+] Opening connection to pwn.chal.csaw.io on port 8000: Done",
          error: false,
        },
      },
      {
        bash: {
          command: "npx playwright test",
          output: "Unable to initialize playwright.\ndir: cannot access '/B': No such file or directory",
          error: true,
        },
      },
    ]);
    expect(got.join("\n")).not.toMatch(/terminfo/);
    expect(got).toContain("Unable to initialize playwright.");
  });
});

describe("failures: exception names the agent mentions", () => {
  it("leaves out routines named like exceptions, keeps an exception it hit", () => {
    const got = failureTexts([
      { user: "Fix the duplicate entries." },
      {
        assistant:
          "The `LogAPIRequest`, `LogAPIResponse`, `LogError`, and `LogSetupError` methods were not setting the entry number. And let me fix the `HandleException` routine as well.",
      },
      { assistant: "The run stopped with a ModuleNotFoundError before any test ran." },
    ]);
    expect(got).toEqual(["ModuleNotFoundError"]);
  });
});
